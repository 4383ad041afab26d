"""Issue 41, group 5: a JavaScript method and a command runtime are audited like Python, and
what the audit cannot read is "not audited", never OK (not even without ``--strict``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from methods_for_tests import MANIFEST, needs_node, write_node_probe

from pytest_mteval.methods.audit import audit_method
from pytest_mteval.methods.audit_js import tokens

pytest_plugins = ["pytester"]

#: A champollion-shaped method that phones home, runs a shell and evaluates text.
HOSTILE_JS = """'use strict';
const net = require('node:net');
const { execSync } = require("child_process");
// require('vm') in a comment is no finding
const WORD = /[a-z]+\\/require\\('http'\\)/g;
module.exports = {
  async translate(sources) {
    const sock = net.connect(80, 'example.org');
    const out = execSync(`id`).toString();
    const x = eval('1 + 1');
    const secret = require('fs').readFileSync('/etc/hostname', 'utf8');
    return sources.map((s) => s + (x ?? ''));
  },
};
"""

#: (name, code, category) of single-finding JavaScript files.
HOSTILE_LINES = [
    ("esm-import", "import http from 'http';\n", "network"),
    ("esm-star", "import * as cp from 'node:child_process';\n", "subprocess"),
    ("fetch", "const r = await fetch('https://example.org');\n", "network"),
    ("new-function", "const f = new Function('return 1');\n", "dynamic_code"),
    ("computed-require", "const m = require('child' + '_process');\n", "dynamic_code"),
    ("dynamic-import", "const m = await import('os');\n", "dynamic_code"),
    ("argv", "const corpus = process.argv[2];\n", "introspection"),
    ("binding", "process.binding('spawn_sync');\n", "native_code"),
    ("vm", "const vm = require('vm');\n", "dynamic_code"),
    ("home", "const h = require('os').homedir();\n", "outside_files"),
    ("dotdot", "fs.readFileSync(`../../corpora/${name}.json`);\n", "outside_files"),
    ("global-eval", "globalThis['ev' + 'al']('1');\n", "dynamic_code"),
    ("aliased-require", "const r = require;\nconst n = r('net');\n", "dynamic_code"),
    ("module-require", "const n = module.require('net');\n", "network"),
    ("main-module", "process.mainModule.require('child_process');\n", "subprocess"),
]


def mteval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


def command_method(root: Path, runtime: list[str], files: dict[str, str]) -> Path:
    folder = root / "cmd"
    folder.mkdir()
    manifest = {**MANIFEST, "runtime": runtime, "entry_point": runtime[-1]}
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        if text.startswith("#!"):
            (folder / name).chmod(0o755)
    return folder


def test_a_hostile_translate_js_is_audited_like_python(tmp_path):
    """The attack: '0 Python files, 0 findings, OK' for net, child_process and eval."""
    folder = write_node_probe(tmp_path, HOSTILE_JS)
    result = audit_method(folder)
    found = {(f.category, f.line, f.what) for f in result.findings}
    assert ("network", 2, "require node:net") in found
    assert ("subprocess", 3, "require child_process") in found
    assert ("dynamic_code", 10, "eval") in found
    assert ("outside_files", 11, "readFileSync('/etc/hostname')") in found
    assert not any(f.what in ("require vm", "require http") for f in result.findings)
    assert result.files == 1
    assert not result.passed
    for flag in ([], ["--strict"]):
        shown = mteval("audit", str(folder), *flag)
        assert shown.returncode == 1, shown.stdout
        assert "OK" not in shown.stdout
        assert "CONTRADICTION class S method has network (require node:net at probe.js:2" in (
            shown.stdout
        )


@pytest.mark.parametrize(("name", "code", "category"), HOSTILE_LINES)
def test_each_javascript_finding(tmp_path, name, code, category):
    folder = write_node_probe(tmp_path, code)
    assert category in {f.category for f in audit_method(folder).findings}, name


def test_a_clean_javascript_method_passes(tmp_path):
    """The shipped lookup's node entry point reads its word list by a computed path only."""
    lookup = Path(__file__).parents[1] / "pytest_mteval" / "methods" / "shipped" / "lookup"
    result = audit_method(lookup)
    assert result.passed
    assert result.files == 2
    assert result.findings == []


def test_an_unterminated_javascript_string_is_reported_not_skipped(tmp_path):
    folder = write_node_probe(tmp_path, "const x = 'open;\nrequire('net');\n")
    assert [f.what for f in audit_method(folder).findings] == [
        "unparseable file (an unterminated string)"
    ]


def test_the_tokenizer_keeps_templates_regexes_and_division_apart():
    cut = tokens("a = b / c / d; r = /x\\/'y/g; t = `p${ {k: '`'}.k }q`;")
    assert [t.kind for t in cut if t.kind in ("regex", "template", "string")] == [
        "regex",
        "template",
        "string",
        "template",
    ]


def test_a_command_runtime_running_node_is_audited(tmp_path):
    folder = command_method(
        tmp_path,
        ["node", "runner.js"],
        {"runner.js": "const cp = require('child_process');\ncp.exec('curl x');\n"},
    )
    result = audit_method(folder)
    assert [f.what for f in result.findings] == ["require child_process"]
    assert result.not_audited == []
    assert mteval("audit", str(folder)).returncode == 1


def test_a_command_runtime_running_a_python_script_by_path_is_audited(tmp_path):
    folder = command_method(
        tmp_path,
        ["./runner"],
        {"runner": "#!/usr/bin/env python3\nimport socket\n"},
    )
    result = audit_method(folder)
    assert [(f.category, f.file) for f in result.findings] == [("network", "runner")]
    assert result.not_audited == []


@pytest.mark.parametrize(
    ("runtime", "files", "reason"),
    [
        (["bash", "run.sh"], {"run.sh": "exec nc example.org 80\n"}, "starts bash"),
        (["./run.sh"], {"run.sh": "#!/bin/sh\nexec nc example.org 80\n"}, "cannot read"),
        (["python3", "../elsewhere/runner.py"], {}, "not a file of the method's folder"),
        (["/elsewhere/runner.py"], {}, "outside the method's folder"),
        (["perl", "-e", "print 1"], {}, "starts perl"),
    ],
)
def test_a_runtime_the_audit_cannot_read_is_never_ok(tmp_path, runtime, files, reason):
    folder = command_method(tmp_path, runtime, files)
    result = audit_method(folder)
    assert not result.passed
    assert any(reason in why for why in result.not_audited), result.not_audited
    shown = mteval("audit", str(folder))
    assert shown.returncode == 1
    assert "NOT AUDITED" in shown.stdout
    assert "OK" not in shown.stdout


def test_a_compiled_program_in_the_folder_is_not_audited(tmp_path):
    folder = command_method(tmp_path, ["python3", "runner.py"], {"runner.py": "print(1)\n"})
    (folder / "helper").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))
    os.chmod(folder / "helper", 0o755)
    result = audit_method(folder)
    assert ("native_code", "helper") in {(f.category, f.file) for f in result.findings}
    assert result.not_audited == ["helper is a compiled program the audit cannot read"]


@needs_node
def test_the_run_card_of_a_node_method_records_its_findings(pytester, small_corpus):
    folder = write_node_probe(
        pytester.path,
        "const cp = require('child_process');\n"
        "module.exports = { translate: async (s) => s.map((x) => x) };\n",
    )
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={folder}",
        f"--mteval-run-card={card}",
        "--mteval-sandbox=none",
    )
    result.stdout.fnmatch_lines(["*FLAG*method_audit_contradiction*class S method has subprocess*"])
    audit = json.loads(card.read_text(encoding="utf-8"))["method"]["audit"]
    assert audit["passed"] is False
    assert {"category": "subprocess", "file": "probe.js", "line": 1,
            "what": "require child_process"} in audit["findings"]  # fmt: skip


def test_the_run_card_says_not_audited(pytester, small_corpus):
    """A command runtime started through bash: the card records why, and flags it."""
    wrapper = Path(__file__).parents[1] / "examples" / "wrappers" / "cli-tool" / "runner.py"
    folder = command_method(
        pytester.path,
        ["bash", "run.sh"],
        {
            "run.sh": f'exec {sys.executable} "$(dirname "$0")/runner.py" cat\n',
            "runner.py": wrapper.read_text(encoding="utf-8"),
        },
    )
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={folder}",
        f"--mteval-run-card={card}",
        "--mteval-sandbox=none",
    )
    result.stdout.fnmatch_lines(["*FLAG*method_not_audited*not audited: runtime*starts bash*"])
    written = json.loads(card.read_text(encoding="utf-8"))
    assert written["method"]["audit"]["passed"] is False
    assert "starts bash" in written["method"]["audit"]["not_audited"][0]
    assert any(f["code"] == "method_not_audited" for f in written["flags"])
