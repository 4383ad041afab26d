"""Fault injection at the method boundary: each wrong type of each result field, and each
wrong shape of a batch's answer, ends as a written, verifying card with one row per entry,
the faulty entries as errors naming the cause, and the others scored as in a clean run."""

from __future__ import annotations

import json

import pytest
from fault_probe import FIELD_FAULTS, SHAPE_FAULTS
from faults import assert_accounted, checked_card, run

pytest_plugins = ["pytester"]


@pytest.mark.parametrize("fault", sorted(FIELD_FAULTS))
def test_a_wrong_field_is_that_entrys_error(pytester: pytest.Pytester, fault: str) -> None:
    result, path = run(pytester, fault)
    card = checked_card(path)
    _field, _value, words = FIELD_FAULTS[fault]
    assert_accounted(card, {"2"}, f"entry 2: {words}")
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 1
    assert "Traceback" not in result.stdout.str()
    assert card["complete"] is True


#: Faults that fail the whole batch of the target (entries 1 and 2) rather than one entry.
BATCH_WIDE = {"raise", "non-list"}


@pytest.mark.parametrize("fault", sorted(SHAPE_FAULTS))
def test_a_wrong_answer_shape_is_an_error_on_its_entries(
    pytester: pytest.Pytester, fault: str
) -> None:
    result, path = run(pytester, fault)
    card = checked_card(path)
    faulty = {"1", "2"} if fault in BATCH_WIDE else {"2"}
    assert_accounted(card, faulty, SHAPE_FAULTS[fault])
    result.assert_outcomes(passed=4 - len(faulty), failed=len(faulty))
    out = result.stdout.str()  # the harness never crashes: a traceback is the method's own
    assert out.count("Traceback") == out.count("the method's traceback:") <= 1


def test_clean_and_faulty_runs_agree_on_the_other_entries(pytester: pytest.Pytester) -> None:
    """Compared with the harness's own clean run, not only with sacrebleu."""
    _, clean_path = run(pytester, "none")
    clean = {r["entry_id"]: r for r in checked_card(clean_path)["results"]}
    clean_path.rename(pytester.path / "clean.json")
    _, faulty_path = run(pytester, "tool_calls-int")
    faulty = {r["entry_id"]: r for r in checked_card(faulty_path)["results"]}
    assert set(clean) == set(faulty) == {"1", "2", "3", "4"}
    for key in ("1", "3", "4"):
        for field in ("predicted", "chrf_score", "bleu_score", "ter_score", "exact_match"):
            assert faulty[key][field] == clean[key][field]


def test_tool_calls_five_does_not_make_rows_vanish(pytester: pytest.Pytester) -> None:
    """The issue's case: ``tool_calls: 5`` once failed items and dropped their rows."""
    _, path = run(pytester, "tool_calls-int")
    card = checked_card(path)
    assert len(card["results"]) == 4
    assert card["scores"]["errors"] == 1
    assert next(r for r in card["results"] if r["entry_id"] == "2")["tool_call_count"] == 0


def test_a_faulty_result_is_never_cached(pytester: pytest.Pytester) -> None:
    run(pytester, "usage-str")
    stored = [
        json.loads(p.read_text(encoding="utf-8"))
        for p in (pytester.path / ".mteval" / "cache").rglob("*.json")
        if p.name != "fingerprint.json"
    ]
    assert len(stored) == 3  # entries 1, 3, 4; never the faulty entry 2
    assert all(isinstance(s["result"].get("usage", {}), dict) for s in stored)
    # a rerun serves 3 from the cache and asks the method again for entry 2 only
    (pytester.path / "card.json").unlink()
    _, path = run(pytester, "usage-str")
    card = checked_card(path)
    assert card["cache"]["cache_hits"] == 3
    assert_accounted(card, {"2"}, "usage must be an object, got str")
