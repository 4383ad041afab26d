"""``--mteval-update-baseline``: the typed outcome of writing a baseline, and the one line the
terminal shows for each (``plugin/end_run.py`` turns the outcome into words)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faults import run

from pytest_mteval.cards import runcard
from pytest_mteval.cards.baseline import BaselineOutcome, BaselineUpdate, replace_baseline
from pytest_mteval.plugin.end_run import baseline_message

pytest_plugins = ["pytester"]

CARD = {"run_id": "r", "complete": True, "scores": {"composite": 0.5}}


def test_only_a_passing_complete_run_of_the_whole_corpus_is_written(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    assert replace_baseline(None, CARD, True, True) == BaselineUpdate(BaselineOutcome.NO_BASELINE)
    assert replace_baseline(path, CARD, False, True).outcome is BaselineOutcome.RUN_FAILED
    incomplete = {**CARD, "complete": False, "incomplete_reason": "2 entries not run"}
    update = replace_baseline(path, incomplete, True, True)
    assert (update.outcome, update.detail) == (BaselineOutcome.INCOMPLETE, "2 entries not run")
    assert replace_baseline(path, CARD, True, False).outcome is BaselineOutcome.PARTIAL
    assert not path.exists()  # none of those wrote anything
    update = replace_baseline(path, CARD, True, True)
    assert update == BaselineUpdate(BaselineOutcome.WRITTEN, path)
    assert not update.failed
    assert json.loads(path.read_bytes()) == json.loads(runcard.render(CARD))


def test_a_baseline_that_cannot_be_written_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    path = tmp_path / "file" / "baseline.json"  # its folder is a file
    update = replace_baseline(path, CARD, True, True)
    assert update.outcome is BaselineOutcome.WRITE_FAILED
    assert update.failed
    assert baseline_message(update).startswith(f"NOT WRITTEN to {path}: ")


@pytest.mark.parametrize(
    ("update", "message"),
    [
        (
            BaselineUpdate(BaselineOutcome.NO_BASELINE),
            "not updated: --mteval-update-baseline needs --mteval-baseline",
        ),
        (
            BaselineUpdate(BaselineOutcome.RUN_FAILED, Path("b.json")),
            "not updated: the run did not pass",
        ),
        (
            BaselineUpdate(BaselineOutcome.INCOMPLETE, Path("b.json"), "1 entry not run"),
            "not updated: the run is incomplete (1 entry not run)",
        ),
        (
            BaselineUpdate(BaselineOutcome.PARTIAL, Path("b.json")),
            "not updated: the run did not cover the whole corpus",
        ),
        (
            BaselineUpdate(BaselineOutcome.WRITE_FAILED, Path("b.json"), "Is a directory"),
            "NOT WRITTEN to b.json: Is a directory",
        ),
        (BaselineUpdate(BaselineOutcome.WRITTEN, Path("b.json")), "written to b.json"),
    ],
)
def test_each_outcome_has_its_line(update: BaselineUpdate, message: str) -> None:
    assert baseline_message(update) == message


def test_a_baseline_write_failure_fails_the_session_with_one_line(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.path / "baselines"
    folder.mkdir()
    # the folder is fine at start, and a file by the end of the run
    pytester.makeconftest(
        f"""
import shutil
def pytest_collection_finish(session):
    shutil.rmtree({str(folder)!r})
    open({str(folder)!r}, "w").close()
"""
    )
    baseline = folder / "main.json"
    result, card = run(
        pytester, "none", f"--mteval-baseline={baseline}", "--mteval-update-baseline"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"mteval: baseline NOT WRITTEN to {baseline}: *"])
    assert "Traceback" not in result.stdout.str()
    assert card.exists()  # the run's own card is written all the same
