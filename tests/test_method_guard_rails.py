"""A method author's mistakes, as the user's command shows them: one line at start, or one
full report per root cause, not one per entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import write_probe

pytest_plugins = ["pytester"]

PLAIN_DEF = """
class Probe:
    def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""


def _corpus(folder: Path, count: int) -> Path:
    path = folder / "corpus.json"
    path.write_text(json.dumps(envelope(flores_entries(count))), encoding="utf-8")
    return path


@pytest.mark.parametrize("runner", ["process", "inprocess"])
def test_a_plain_def_translate_is_refused_at_start_in_one_line(
    pytester: pytest.Pytester, runner: str
) -> None:
    probe = write_probe(pytester.path, PLAIN_DEF)
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path, 3)}", f"--mteval-method={probe}",
        f"--mteval-runner={runner}", "--mteval-no-cache",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [
        f"ERROR: {probe / 'probe.py'}:3: Probe.translate is a plain def; the harness awaits it: "
        "write 'async def translate(self, entries, config)' (docs/methods.md)"
    ]
    text = result.stdout.str() + result.stderr.str()
    assert "await' expression" not in text
    assert "Traceback" not in text
