"""Bounded work per entry (issue 21, item 5): a prediction far longer than its source is cut
before anything keeps or scores it, the card and the terminal say so, and the metrics of one
entry stop at ``--mteval-score-timeout``. A 4 MB prediction once took 52 s and 1.28 GB; the
figures live in benchmarks/huge_prediction.py, never in timed asserts here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from conftest import envelope, flores_entries
from faults import checked_card
from methods_for_tests import MANIFEST

from pytest_mteval.metrics.bounds import SCORING_CAP, scoring_limit
from pytest_mteval.run.result_model import cut_for_scoring
from pytest_mteval.scoring.comparable_run import harness_row

pytest_plugins = ["pytester"]

#: Entry 2 answers 4 MB of garbage ('x x x ...'); the others their source upper-cased.
HUGE = """
class Probe:
    async def translate(self, entries, config):
        size = int(config.method_args.get("size", "2000000"))
        out = []
        for e in entries:
            text = e["source"].upper()
            if str(e["id"]) == "2":
                text = "x " * size
            out.append({"id": e["id"], "predicted": text, "raw_predicted": text,
                        "truncated_for_scoring": {"kept_chars": 1}})
        return out
"""

#: A plugin metric that takes its time on predictions starting with X (the huge entry).
SLOW_METRIC = """
import time

class Slow:
    name = "slow"

    def score_entry(self, entry, predicted):
        if predicted.startswith("x "):
            time.sleep(1.5)
        return {"ok": 1}

    def aggregate(self, records):
        return {}

def pytest_mteval_metrics(context):
    return [Slow()]
"""


def _session(pytester: pytest.Pytester, *extra: str) -> tuple[pytest.RunResult, Path]:
    corpus = pytester.path / "corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(4))), encoding="utf-8")
    method = pytester.path / "probe"
    method.mkdir(exist_ok=True)
    manifest = {**MANIFEST, "args": {"size": {"type": "string"}}}
    (method / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    (method / "probe.py").write_text(HUGE, encoding="utf-8")
    card = pytester.path / "card.json"
    card.unlink(missing_ok=True)
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        "--mteval-batch-size=2",
        f"--mteval-run-card={card}",
        *extra,
    )
    return result, card


def _rows(card: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["entry_id"]: row for row in card["results"]}


def test_a_4mb_prediction_is_cut_flagged_and_scored_on_the_cut(
    pytester: pytest.Pytester,
) -> None:
    result, path = _session(pytester)
    card = checked_card(path)
    rows = _rows(card)
    huge = rows["2"]
    source = flores_entries(4)[1]["source"]
    limit = scoring_limit(source)
    assert huge["truncated_for_scoring"] == {
        "kept_chars": limit,
        "predicted_chars": 4_000_000,
        "raw_predicted_chars": 4_000_000,
    }
    assert huge["predicted"] == ("x " * 2_000_000)[:limit] == huge["raw_predicted"]
    assert huge["error"] is None
    reference = huge["expected"]
    cut = huge["predicted"]  # scored by sacrebleu itself, not by the harness
    chrf = sacrebleu.sentence_chrf(cut, [reference], word_order=2).score
    assert huge["chrf_score"] == pytest.approx(chrf, abs=1e-9)
    assert huge["bleu_score"] == pytest.approx(
        sacrebleu.sentence_bleu(cut, [reference]).score, abs=1e-9
    )
    assert huge["ter_score"] == pytest.approx(
        sacrebleu.sentence_ter(cut, [reference]).score, abs=1e-9
    )
    for key in ("1", "3", "4"):  # the others answered and scored as ever, no flag
        assert rows[key]["error"] is None
        assert "truncated_for_scoring" not in rows[key]
        assert rows[key]["predicted"] == rows[key]["source"].upper()
    flags = [f for f in card["flags"] if f["code"] == "truncated_for_scoring"]
    assert len(flags) == 1
    assert flags[0]["entry_ids"] == ["2"]
    out = result.stdout.str()
    assert "FLAG" in out
    assert "truncated_for_scoring: 1 of 4 entries" in out
    assert "Traceback" not in out


def test_the_cache_keeps_the_cut_and_its_flag(pytester: pytest.Pytester) -> None:
    _session(pytester, "--mteval-method-arg=size=20000")
    stored = [
        p.read_text(encoding="utf-8")
        for p in (pytester.path / ".mteval" / "cache").rglob("*.json")
        if p.name != "fingerprint.json"
    ]
    assert stored
    assert max(len(text) for text in stored) < 3 * SCORING_CAP
    _, path = _session(pytester, "--mteval-method-arg=size=20000")
    card = checked_card(path)
    assert card["cache"]["cache_hits"] == 4
    assert _rows(card)["2"]["truncated_for_scoring"]["predicted_chars"] == 40_000
    assert [f["entry_ids"] for f in card["flags"] if f["code"] == "truncated_for_scoring"] == [
        ["2"]
    ]


def test_a_method_cannot_flag_its_own_result(pytester: pytest.Pytester) -> None:
    """The probe claims ``truncated_for_scoring`` on every result: only the harness sets it."""
    _, path = _session(pytester, "--mteval-method-arg=size=10")
    card = checked_card(path)
    assert all("truncated_for_scoring" not in row for row in card["results"])
    assert not [f for f in card["flags"] if f["code"] == "truncated_for_scoring"]


def test_scoring_past_its_timeout_is_that_entrys_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SLOW_METRIC)
    result, path = _session(pytester, "--mteval-method-arg=size=50", "--mteval-score-timeout=0.5")
    card = checked_card(path)
    rows = _rows(card)
    assert rows["2"]["error"] == "scoring timed out: the metrics took over 0.5s"
    assert rows["2"]["predicted"] is None
    assert rows["2"]["chrf_score"] is None
    for key in ("1", "3", "4"):
        assert rows[key]["error"] is None
        assert rows[key]["plugin_metrics"] == {"slow": {"ok": 1}}
        assert rows[key]["chrf_score"] is not None
    assert card["scores"]["errors"] == 1
    assert "Traceback" not in result.stdout.str()


def test_the_limit_follows_the_source_and_the_cap() -> None:
    assert scoring_limit("") == SCORING_CAP
    long_source = "a" * 10_000
    assert scoring_limit(long_source) == 8 * 10_000 + 200
    kept = cut_for_scoring("hi", {"predicted": "y" * SCORING_CAP, "truncated_for_scoring": 1})
    assert kept == {"predicted": "y" * SCORING_CAP}  # at the cap: untouched, claim dropped
    cut = cut_for_scoring("hi", {"predicted": "y" * (SCORING_CAP + 1), "error": None})
    assert cut["predicted"] == "y" * SCORING_CAP
    assert cut["truncated_for_scoring"] == {
        "kept_chars": SCORING_CAP,
        "predicted_chars": SCORING_CAP + 1,
    }


def test_a_reference_harness_reports_huge_prediction_is_scored_on_the_cut() -> None:
    """A baseline report is re-scored by our code (scoring/comparable_run.py): the same bound."""
    entry = flores_entries(1)[0]
    huge = "x " * 2_000_000
    row = harness_row({**entry, "expected": entry["reference"], "predicted": huge})
    cut = huge[: scoring_limit(entry["source"])]
    assert row["predicted"] == cut
    assert row["ter_score"] == pytest.approx(
        sacrebleu.sentence_ter(cut, [entry["reference"]]).score, abs=1e-9
    )
