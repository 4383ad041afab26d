"""Fault injection at the session level: a worker that dies (os._exit under -n 2), -x, an
interrupted session, and a card that cannot be written. Each ends as a written, verifying card
with one row per collected entry (or as a failed session saying why), never INTERNALERROR."""

from __future__ import annotations

import json

import pytest
from fault_probe import METHOD_FAULTS
from faults import assert_accounted, checked_card, run

pytest_plugins = ["pytester"]


def rows(card: dict) -> dict[str, str | None]:
    return {row["entry_id"]: row["error"] for row in card["results"]}


#: The method runs inside the xdist worker, so os._exit kills the worker itself (with the default
#: runner process it kills only the runner: tests/test_runner_process.py covers that).
IN_WORKER = "--mteval-runner=inprocess"


def test_a_worker_dying_once_loses_no_row(pytester: pytest.Pytester) -> None:
    """xdist re-runs the crashed worker's batch on its replacement: every entry scored."""
    result, path = run(pytester, "exit-once", "-n", "2", IN_WORKER, subprocess=True)
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "crashed while running" in output
    card = checked_card(path)
    assert_accounted(card, set(), "")
    assert card["complete"] is True


def test_a_worker_dying_every_time_leaves_rows_saying_so(pytester: pytest.Pytester) -> None:
    result, path = run(
        pytester, "exit-always", "-n", "2", "--max-worker-restart=1", IN_WORKER, subprocess=True
    )
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert result.ret == 1
    card = checked_card(path)
    errors = rows(card)
    assert len(card["results"]) == 4
    assert errors["3"] is None
    assert errors["4"] is None
    assert errors["1"] is not None
    assert errors["1"].startswith("lost: worker gw")
    assert errors["1"].endswith(" crashed")
    assert errors["2"] is not None
    assert errors["2"].startswith(("lost: worker gw", "not run: xdist stopped after"))
    assert card["complete"] is False
    assert "entr" in card["incomplete_reason"]
    assert "the gate does not pass an incomplete run" in result.stdout.str()


def test_every_batch_crashing_never_ends_in_internalerror(pytester: pytest.Pytester) -> None:
    """The issue's case: os._exit in every batch once gave INTERNALERROR KeyError."""
    result, path = run(
        pytester,
        "exit-always",
        "-n",
        "2",
        "--max-worker-restart=2",
        IN_WORKER,
        target="*",
        subprocess=True,
    )
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    card = checked_card(path)
    assert len(card["results"]) == 4
    assert all(error is not None for error in rows(card).values())
    assert card["complete"] is False


def test_exitfirst_gives_rows_for_entries_not_run(pytester: pytest.Pytester) -> None:
    result, path = run(pytester, "raise", "-x", "-p", "no:randomly", target="1")
    card = checked_card(path)
    errors = rows(card)
    assert errors["1"] == "method raised RuntimeError: injected fault"
    assert errors["2"] == errors["3"] == errors["4"] == "not run: stopped by -x"
    assert card["complete"] is False
    assert card["incomplete_reason"] == "3 entries not run: stopped by -x"
    assert card["gate"]["passed"] is False
    assert result.ret == 1


def test_an_incomplete_run_is_never_written_as_baseline(pytester: pytest.Pytester) -> None:
    baseline = pytester.path / "baseline.json"
    result, path = run(
        pytester,
        "none",
        "-x",
        "-p",
        "no:randomly",
        f"--mteval-baseline={baseline}",
        "--mteval-update-baseline",
        "-k",
        "not entry-2",
    )
    # -k deselects entry 2: a complete run of the selection, but not of the corpus
    assert not baseline.exists()
    assert "not updated" in result.stdout.str()
    card = checked_card(path)
    assert card["complete"] is True
    assert len(card["results"]) == 3


def test_an_interrupted_session_marks_the_card(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_runtest_logreport(report):
    if report.when == "call" and report.nodeid.endswith("entry-2"):
        raise KeyboardInterrupt
"""
    )
    result, path = run(pytester, "none", "-p", "no:randomly", subprocess=True)
    card = checked_card(path)
    errors = rows(card)
    assert errors["1"] is None
    assert errors["2"] is None
    assert errors["3"] == errors["4"] == "not run: interrupted"
    assert card["complete"] is False
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_a_card_that_cannot_be_written_fails_the_session(pytester: pytest.Pytester) -> None:
    out = pytester.path / "out"
    out.mkdir()
    # the folder is fine at start, and a file by the end of the run
    pytester.makeconftest(
        f"""
import shutil
def pytest_collection_finish(session):
    shutil.rmtree({str(out)!r})
    open({str(out)!r}, "w").close()
"""
    )
    result, _ = run(pytester, "none", f"--mteval-run-card={out / 'card.json'}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*mteval: run card NOT WRITTEN*"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("--mteval-run-card=/dev/null", "not a regular file"),
        ("--mteval-run-card={tmp}", "a folder"),
        ("--mteval-run-card={tmp}/file.txt/card.json", "is not a folder"),
        ("--mteval-timeout=inf", "--mteval-timeout must be between"),
        ("--mteval-timeout=1e10", "--mteval-timeout must be between"),
        ("--mteval-timeout=nan", "--mteval-timeout must be between"),
        ("--mteval-request-timeout=1e400", "--mteval-request-timeout must be between"),
        ("--mteval-max-drop=inf", "--mteval-max-drop must be a finite number"),
        ("--mteval-method-arg=nope=1", "has no arg 'nope' (known: fault, secret, target)"),
    ],
)
def test_bad_options_are_refused_at_start_with_one_line(
    pytester: pytest.Pytester, option: str, words: str
) -> None:
    (pytester.path / "file.txt").write_text("x", encoding="utf-8")
    result, card = run(pytester, "none", option.format(tmp=pytester.path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert words in errors[0]
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert not card.exists()


def test_a_baseline_path_that_is_a_device_is_refused_before_the_run(
    pytester: pytest.Pytester,
) -> None:
    result, _ = run(pytester, "none", "--mteval-baseline=/dev/null", "--mteval-update-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --mteval-baseline=/dev/null: not a regular file*"])


def test_an_edited_cache_entry_is_ignored_retranslated_and_counted(
    pytester: pytest.Pytester,
) -> None:
    _, first = run(pytester, "none")
    clean = checked_card(first)
    first.unlink()
    stored = sorted(
        p for p in (pytester.path / ".mteval" / "cache").rglob("*.json") if len(p.stem) == 64
    )
    assert len(stored) == 4
    payload = json.loads(stored[0].read_text(encoding="utf-8"))
    target = payload["result"]["predicted"]
    payload["result"]["predicted"] = "forged"
    stored[0].write_text(json.dumps(payload), encoding="utf-8")
    _, second = run(pytester, "none")
    card = checked_card(second)
    assert card["cache"]["cache_hits"] == 3
    assert card["cache"]["cache_rejected"] == 1
    assert "forged" not in second.read_text(encoding="utf-8")
    assert [r["predicted"] for r in card["results"]] == [r["predicted"] for r in clean["results"]]
    assert target in [r["predicted"] for r in card["results"]]
    # the re-translation was stored again, intact: a third run hits all four
    second.unlink()
    _, third = run(pytester, "none")
    assert checked_card(third)["cache"]["cache_hits"] == 4


@pytest.mark.parametrize("fault", sorted(METHOD_FAULTS))
def test_a_wrong_method_level_field_stops_the_run_at_start(
    pytester: pytest.Pytester, fault: str
) -> None:
    result, card = run(pytester, fault)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith(f"ERROR: method 'probe': {METHOD_FAULTS[fault][1]}")
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert not card.exists()


def test_collect_only_writes_no_card_of_entries_not_run(pytester: pytest.Pytester) -> None:
    """Nothing was meant to run: the ledger must not turn every entry into 'not run'."""
    result, card = run(pytester, "none", "--collect-only")
    assert result.ret == pytest.ExitCode.OK
    assert not card.exists()


def test_exitfirst_under_xdist_says_stopped_by_x(pytester: pytest.Pytester) -> None:
    """xdist ends a -x session as interrupted; the rows still say why."""
    result, path = run(pytester, "raise", "-x", "-n", "2", target="*", subprocess=True)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    card = checked_card(path)
    errors = rows(card)
    assert len(errors) == 4
    raised = {k for k, e in errors.items() if e == "method raised RuntimeError: injected fault"}
    assert raised
    assert all(errors[k] == "not run: stopped by -x" for k in set(errors) - raised)
    assert card["complete"] is (len(raised) == 4)


def test_an_item_failing_inside_the_harness_still_has_its_row(pytester: pytest.Pytester) -> None:
    """An error in the harness's own code (here: an id whose str() raises) fails the batch's
    items without records; their rows say so and the card is incomplete, not shorter. In
    process the hostile object reaches the harness; a runner process would stop it at the
    JSON boundary."""
    result, path = run(pytester, "hostile-id", "-p", "no:randomly", IN_WORKER)
    card = checked_card(path)
    errors = rows(card)
    assert len(errors) == 4
    assert errors["3"] is None
    assert errors["4"] is None
    for key in ("1", "2"):
        assert errors[key] is not None
        assert errors[key].startswith("internal error: ")
        assert "hostile id" in errors[key]
    assert card["complete"] is False
    assert "Traceback" not in result.stdout.str()
