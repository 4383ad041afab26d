"""Equivalent match: the prediction equals the reference or one of the entry's acceptable
variants (after exact match's normalization), or a language plugin says it is equivalent.

The plugin decides first (the ``pytest_mteval_equivalent`` hook, passed in as ``judge``); when it
abstains (None) the built-in comparison decides. The run's rate is null when nothing could
tell an equivalent apart from an exact match: no entry has variants and no judge ever answered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.base import JSONDict, MetricContext
from pytest_mteval.metrics.catalog import EQUIVALENT_MATCH
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.match import equivalent_match

#: ``judge(entry, predicted)`` returns True/False, or None to leave the decision to the variants.
Judge = Callable[[Entry, str], bool | None]


class EquivalentMatch:
    name = "equivalence"
    definitions = (EQUIVALENT_MATCH,)

    def __init__(self, judge: Judge | None = None) -> None:
        self.judge = judge

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        verdict = self.judge(entry, predicted) if self.judge is not None else None
        judged = verdict is not None
        if verdict is None:
            verdict = equivalent_match(predicted, entry.reference, entry.variants)
        return {"equivalent_match": bool(verdict), "equivalent_judged": judged}

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        informative = any(r.get("variants") for r in records) or any(
            r.get("equivalent_judged") for r in records
        )
        matches = sum(1 for r in records if r.get("equivalent_match") is True)
        return {
            "equivalent_matches": matches,
            "equivalent_match_rate": EQUIVALENT_MATCH.score(records) if informative else None,
        }


def build(context: MetricContext, judge: Judge | None = None) -> EquivalentMatch:
    """Always available: without variants or a judge it still records per-entry matches."""
    return EquivalentMatch(judge)
