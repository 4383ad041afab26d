"""Equivalent match: the prediction equals the reference or one of the entry's acceptable
variants (after exact match's normalization), or a language plugin says it is equivalent.

The plugin decides first (the ``pytest_mteval_equivalent`` hook, the context's ``judge``); when it
abstains (None) the built-in comparison decides. The run's rate is null when nothing could
tell an equivalent apart from an exact match: no entry has variants and no judge ever answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, Judge, MetricContext
from pytest_mteval.metrics.definition import MetricDefinition, ShareOfAll
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.match import equivalent_match

__all__ = ["EQUIVALENT_MATCH", "FAMILY", "EquivalentMatch", "Judge", "build"]

EQUIVALENT_MATCH: Final = MetricDefinition(
    "equivalent_match_rate",
    "equivalent match",
    ShareOfAll("equivalent_match"),
    shown_at=2,
    card_keys=("equivalent_matches",),
)


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


def build(context: MetricContext) -> EquivalentMatch:
    """Always available: without variants or a judge it still records per-entry matches."""
    return EquivalentMatch(context.judge)


FAMILY: Final = BuiltinFamily(EquivalentMatch, build, build_at=3, report_at=1)
