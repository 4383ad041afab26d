"""A method author's mistakes, as the user's command shows them: one line at start, or one
full report per root cause, not one per entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, envelope, flores_entries
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


#: Fails every entry with one root cause, except entries whose id is in method arg ``good``;
#: entries in ``other`` fail with a second cause.
BROKEN = """
class Probe:
    async def translate(self, entries, config):
        good = config.method_args.get("good", "").split(",")
        other = config.method_args.get("other", "").split(",")
        if any(str(e["id"]) in other for e in entries):
            raise ValueError("second cause: quota exceeded for this project")
        if not all(str(e["id"]) in good for e in entries):
            raise RuntimeError("backend exploded: upstream returned HTTP 500 for model slug x")
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""

CAUSE = "method raised RuntimeError: backend exploded: upstream returned HTTP 500 for model slug x"


def _run_broken(pytester: pytest.Pytester, count: int, *args: str) -> pytest.RunResult:
    folder = pytester.path / "a-rather-long-folder-name-as-real-projects-have" / "corpora"
    folder.mkdir(parents=True)
    probe = write_probe(pytester.path, BROKEN)
    return pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(folder, count)}", f"--mteval-method={probe}",
        "--mteval-no-cache", "--mteval-batch-size=25", "-p", "no:randomly", *args,
    )  # fmt: skip


def test_one_root_cause_over_47_entries_is_one_report_and_one_summary_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a narrow terminal: pytest cuts its summary lines
    monkeypatch.delenv("CI", raising=False)  # on CI pytest would not cut them
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    result = _run_broken(pytester, 47)
    result.assert_outcomes(failed=47)  # every entry still counted as failed
    lines = result.stdout.lines
    headers = [line for line in lines if line.startswith("_") and "mteval entry" in line]
    assert len(headers) == 1, headers  # one full report, with the method's traceback
    assert sum("the method's traceback:" in line for line in lines) == 1
    said = "the same error failed 46 more entries (their rows are in the card; --lf reruns them):"
    assert said in lines
    listed = [line for line in lines if line.startswith("  ") and "::entry-" in line]
    assert len(listed) == 46  # one line per further entry
    failed = [line for line in lines if line.startswith("FAILED")]
    assert len(failed) == 1, failed
    assert failed[0].endswith(f" - {CAUSE} (and 46 more entries with the same error)")
    # the run's summary is on the last screen (it was 331 lines up with one report per entry)
    tail = lines[-40:]
    assert any(line.startswith("run card") for line in tail), "\n".join(lines[-60:])
    assert len(lines) < 120, len(lines)


def test_distinct_causes_stay_distinct_and_good_entries_pass(pytester: pytest.Pytester) -> None:
    good = ",".join(str(i) for i in range(26, 51))  # the second batch of 25 translates
    result = _run_broken(pytester, 60, f"--mteval-method-arg=good={good}",
                         "--mteval-method-arg=other=55", "-rf")  # fmt: skip
    result.assert_outcomes(failed=35, passed=25)
    failed = [line for line in result.stdout.lines if line.startswith("FAILED")]
    assert len(failed) == 2, failed
    assert failed[0].endswith(f" - {CAUSE} (and 24 more entries with the same error)")
    assert failed[1].endswith(
        " - method raised ValueError: second cause: quota exceeded for this project"
        " (and 9 more entries with the same error)"
    )


def test_junit_xml_still_has_every_failed_entry(pytester: pytest.Pytester) -> None:
    result = _run_broken(pytester, 30, "--junitxml=junit.xml")
    result.assert_outcomes(failed=30)
    assert (pytester.path / "junit.xml").read_text(encoding="utf-8").count("<failure") == 30


def test_the_shipped_example_fails_one_entry_not_its_batch(pytester: pytest.Pytester) -> None:
    """docs/methods.md's per-entry error return, as examples/per-entry-errors does it."""
    card_path = pytester.path / "card.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path, 6)}",
        f"--mteval-method={REPO / 'examples' / 'per-entry-errors'}",
        "--mteval-method-arg=fail=2", "--mteval-batch-size=6", "--mteval-no-cache",
        f"--mteval-run-card={card_path}", "-rf",
    )  # fmt: skip
    result.assert_outcomes(failed=1, passed=5)  # one batch of six: only entry 2 fails
    result.stdout.fnmatch_lines(["FAILED *::entry-2 - ValueError: cannot translate entry 2"])
    card = json.loads(card_path.read_text(encoding="utf-8"))
    errors = {row["entry_id"]: row["error"] for row in card["results"]}
    assert errors == {"1": None, "2": "ValueError: cannot translate entry 2", "3": None,
                      "4": None, "5": None, "6": None}  # fmt: skip
    predicted = {row["entry_id"]: row["predicted"] for row in card["results"]}
    sources = {str(e["id"]): e["source"] for e in flores_entries(6)}
    assert all(predicted[key] == sources[key] for key in ("1", "3", "4", "5", "6"))
