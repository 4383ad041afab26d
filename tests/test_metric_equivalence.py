"""Equivalent match over the shipped eng->crk vocabulary corpus, whose entries carry the
other hand-chosen Cree headwords as variants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_mteval.corpus import Entry, load_corpus
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.equivalence import EquivalentMatch, build

REPO = Path(__file__).resolve().parents[1]
VOCAB = REPO / "corpora" / "eng-crk-morphodict-vocab.json"


def about() -> Entry:
    entry = load_corpus(VOCAB).entries[0]
    assert (entry.source, entry.reference, entry.variants) == ("about", "wayês", ["ohci", "papâ"])
    return entry


def test_reference_or_any_variant_matches_after_normalization() -> None:
    metric = build(MetricContext(corpus=load_corpus(VOCAB)))
    assert isinstance(metric, Metric)
    entry = about()
    assert metric.score_entry(entry, " papa\u0302 ")["equivalent_match"] is True  # NFC + strip
    assert metric.score_entry(entry, "wayês")["equivalent_match"] is True
    assert metric.score_entry(entry, "kahkiyaw")["equivalent_match"] is False
    assert metric.score_entry(entry, "ohci")["equivalent_judged"] is False


def test_a_judge_decides_first_and_abstaining_falls_back_to_variants() -> None:
    calls: list[str] = []

    def judge(entry: Entry, predicted: str) -> bool | None:
        calls.append(predicted)
        return {"ohci": False, "kahkiyaw": True}.get(predicted)

    metric = EquivalentMatch(judge)
    entry = about()
    assert metric.score_entry(entry, "ohci") == {
        "equivalent_match": False,
        "equivalent_judged": True,
    }
    assert metric.score_entry(entry, "kahkiyaw")["equivalent_match"] is True
    assert metric.score_entry(entry, "papâ") == {
        "equivalent_match": True,
        "equivalent_judged": False,
    }
    assert calls == ["ohci", "kahkiyaw", "papâ"]


def test_rate_counts_every_record_and_is_null_without_variants_or_verdicts() -> None:
    metric = EquivalentMatch()
    records: list[dict[str, Any]] = [
        {"variants": ["ohci"], "equivalent_match": True, "equivalent_judged": False},
        {"variants": [], "equivalent_match": False, "equivalent_judged": False},
        {"variants": [], "predicted": None, "error": "timeout"},
    ]
    assert metric.aggregate(records) == {"equivalent_matches": 1, "equivalent_match_rate": 1 / 3}
    plain = [{**r, "variants": []} for r in records]
    assert metric.aggregate(plain)["equivalent_match_rate"] is None
    judged = [{**plain[0], "equivalent_judged": True}, *plain[1:]]
    assert metric.aggregate(judged)["equivalent_match_rate"] == 1 / 3
