"""`mteval audit METHOD`: each category found in small hostile method folders, contradictions
with the declared dependency class, the shipped methods clean, and the run card's record."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import METHODS
from methods_for_tests import MANIFEST

from pytest_mteval.methods.audit import audit_method

pytest_plugins = ["pytester"]

TRANSLATE = """
class Probe:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""

#: (name, code, expected category, contradicts class S)
HOSTILE = [
    ("http-client", "import httpx\n", "network", True),
    ("socket-alias", "import socket as s\nconn = s.create_connection\n", "network", True),
    ("urllib", "from urllib.request import urlopen\n", "network", True),
    ("urllib-use", "import urllib\nurllib.request.urlopen('http://x')\n", "network", True),
    ("getattr", "import os\ngetattr(os, 'system')('id')\n", "subprocess", True),
    ("asyncio-conn", "import asyncio\nopen_it = asyncio.open_connection\n", "network", True),
    ("harness-llm", "from pytest_mteval.methods.chat import ChatMethod\n", "llm_client", True),
    ("gc-scan", "import gc\nobjs = gc.get_objects()\n", "introspection", True),
    ("argv", "import sys\nCORPUS = sys.argv\n", "introspection", True),
    ("argv-from", "from sys import argv\n", "introspection", True),
    ("frames", "import inspect\nf = inspect.currentframe()\n", "introspection", True),
    ("subprocess", "import subprocess\n", "subprocess", True),
    ("os-system", "import os\nos.system('curl example.org')\n", "subprocess", True),
    ("os-exec", "import os as o\no.execvp('sh', ['sh'])\n", "subprocess", True),
    ("ctypes", "import ctypes\n", "native_code", True),
    ("cffi", "from cffi import FFI\n", "native_code", True),
    ("etc", "text = open('/etc/hostname').read()\n", "outside_files", True),
    (
        "dotdot",
        "from pathlib import Path\np = Path('../../corpora/x.json')\n",
        "outside_files",
        True,
    ),
    ("home", "from pathlib import Path\nh = Path.home()\n", "outside_files", True),
    ("fstring", "import io\nf = io.open(f'/root/{1}')\n", "outside_files", True),
    ("cwd-relative", "d = open('corpus.json')\n", "outside_files", True),
    ("dunder-import", "m = __import__('so' + 'cket')\n", "dynamic_code", False),
    ("importlib", "import importlib\n", "dynamic_code", False),
    ("eval", "x = eval('1+1')\n", "dynamic_code", False),
    ("pickle", "import pickle\n", "dynamic_code", False),
]


def method_folder(root, name, code, dependency_class="S", dependencies=()):
    folder = root / name
    folder.mkdir(parents=True)
    manifest = {
        **MANIFEST,
        "dependency_class": dependency_class,
        "dependencies": list(dependencies),
    }
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "probe.py").write_text(TRANSLATE, encoding="utf-8")
    (folder / "helpers").mkdir()
    (folder / "helpers" / "hidden.py").write_text(code, encoding="utf-8")  # not the entry point
    return folder


def mteval(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("name", "code", "category", "contradicts"), HOSTILE, ids=[h[0] for h in HOSTILE]
)
def test_each_category_is_found(tmp_path, name, code, category, contradicts):
    folder = method_folder(tmp_path, name, code)
    result = audit_method(folder)
    found = {(f.category, f.file) for f in result.findings}
    assert (category, "helpers/hidden.py") in found, result.findings
    assert {f.file for f in result.findings} == {"helpers/hidden.py"}  # probe.py is clean
    assert (not result.passed) == contradicts
    if contradicts:
        assert result.contradictions[0].startswith(f"class S method has {category} (")


def test_a_shared_library_and_sourceless_bytecode_are_native_code(tmp_path):
    folder = method_folder(tmp_path, "native", "x = 1\n")
    (folder / "libfast.so.1").write_bytes(b"\x7fELF")
    (folder / "helpers" / "secret.pyc").write_bytes(b"\x00")
    result = audit_method(folder)
    assert {(f.category, f.file) for f in result.findings} == {
        ("native_code", "libfast.so.1"),
        ("native_code", "helpers/secret.pyc"),
    }
    assert not result.passed


def test_the_command_fails_on_a_class_s_method_importing_an_http_client(tmp_path):
    folder = method_folder(tmp_path, "liar", "import requests\n")
    result = mteval("audit", str(folder))
    assert result.returncode == 1
    assert "network        helpers/hidden.py:1  import requests" in result.stdout
    assert "CONTRADICTION class S method has network (import requests at helpers/hidden.py:1)" in (
        result.stdout
    )


GATEWAY = {
    "id": "llm",
    "kind": "model",
    "license": "proprietary",
    "access": "gateway",
    "source": "openrouter",
    "substitutable": True,
    "redistributable": False,
    "transferable": False,
}
EXTERNAL = {**GATEWAY, "access": "external-api", "substitutable": False}
SOFTWARE = {
    "id": "tool",
    "kind": "software",
    "license": "MIT",
    "access": "bundled",
    "source": "here",
    "redistributable": True,
    "transferable": True,
}


def test_what_each_class_allows(tmp_path):
    llm = "from pytest_mteval.llm.client import ChatClient\n"
    http = "import httpx\n"
    shell = "import subprocess\n"
    cases = [
        ("a1-llm", llm, "A1", [GATEWAY], True),
        ("a1-http", http, "A1", [GATEWAY], False),  # A1 reaches its model through the gateway
        ("a2-http", http, "A2", [EXTERNAL], True),
        ("s-shell-declared", shell, "S", [SOFTWARE], True),
        ("s-shell", shell, "S", [], False),
        ("a2-gc", "import gc\n", "A2", [EXTERNAL], False),  # no class may read the harness
    ]
    for name, code, cls, deps, passes in cases:
        result = audit_method(method_folder(tmp_path, name, code, cls, deps))
        assert result.passed == passes, (name, result.contradictions)


def test_strict_fails_on_any_finding_and_json_lists_them(tmp_path):
    folder = method_folder(tmp_path, "dyn", "x = eval('2')\n")
    assert mteval("audit", str(folder)).returncode == 0
    assert mteval("audit", str(folder), "--strict").returncode == 1
    listed = json.loads(mteval("audit", str(folder), "--json").stdout)
    assert listed["findings"] == [
        {"category": "dynamic_code", "file": "helpers/hidden.py", "line": 1, "what": "eval"}
    ]


def test_unauditable_folder_is_one_line(tmp_path):
    result = mteval("audit", str(tmp_path))
    assert result.returncode == 2
    assert result.stdout.count("\n") == 1
    assert "method.json" in result.stdout


@pytest.mark.parametrize("name", sorted(p.name for p in METHODS.iterdir() if p.is_dir()))
def test_shipped_methods_pass(name):
    result = mteval("audit", str(METHODS / name))
    assert result.returncode == 0, result.stdout
    assert "OK: nothing found contradicts class" in result.stdout


GC_SCAN = """
import gc

class Probe:
    async def translate(self, entries, config):
        refs = [o for o in gc.get_objects() if type(o).__name__ == "Entry"]
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""


def test_the_run_card_records_the_audit(pytester, small_corpus):
    folder = pytester.path / "scanner"
    folder.mkdir()
    (folder / "method.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    (folder / "probe.py").write_text(GC_SCAN, encoding="utf-8")
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}", f"--mteval-method={folder}", f"--mteval-run-card={card}"
    )
    result.stdout.fnmatch_lines(
        ["*FLAG*method_audit_contradiction*class S method has introspection*"]
    )
    audit = json.loads(card.read_text(encoding="utf-8"))["method"]["audit"]
    assert audit["passed"] is False
    assert {"category": "introspection", "file": "probe.py", "line": 2, "what": "import gc"} in (
        audit["findings"]
    )
    clean = pytester.path / "clean.json"
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={clean}",
    )
    recorded = json.loads(clean.read_text(encoding="utf-8"))["method"]["audit"]
    assert recorded == {
        "passed": True,
        "dependency_class": "S",
        "files": 1,
        "findings": [],
        "contradictions": [],
        "not_audited": [],
    }


def test_a_method_named_by_registry_is_audited_too(pytester, small_corpus):
    """A name is no way around the audit: a plugin's folder registered under a name, and a
    shipped method named as users name it, are audited like a folder given by path."""
    folder = pytester.path / "scanner"
    folder.mkdir()
    (folder / "method.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    (folder / "probe.py").write_text(GC_SCAN, encoding="utf-8")
    pytester.makeconftest(
        f"""
        from pathlib import Path

        def pytest_mteval_methods(config):
            return {{"scanner-by-name": Path({str(folder)!r})}}
        """
    )
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        "--mteval-method=scanner-by-name",
        f"--mteval-run-card={card}",
    )
    result.stdout.fnmatch_lines(["*FLAG*method_audit_contradiction*introspection*"])
    audit = json.loads(card.read_text(encoding="utf-8"))["method"]["audit"]
    assert audit["passed"] is False
    assert audit["findings"][0]["what"] == "import gc"
    shipped = pytester.path / "shipped.json"
    done = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        "--mteval-method=identity",
        f"--mteval-run-card={shipped}",
    )
    assert done.ret == 0
    recorded = json.loads(shipped.read_text(encoding="utf-8"))["method"]["audit"]
    assert recorded is not None
    assert recorded["passed"] is True
    assert recorded["dependency_class"] == "S"
