"""A card that ran several segments, ranked one segment at a time (benchmark spec §2.3, §6.4).

Official scores come from gold_standard evaluation only; development and diagnostic scores
are development scores. A whole-corpus run is therefore not one score: each segment it ran
is viewed apart, with that segment's scores from the card (``scores.by_segment``), its rows
and its coverage, and ranked on that segment's board (``board_rules.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pytest_mteval.cards.card_model import Coverage, Interval
from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.coverage import segment_coverage
from pytest_mteval.scoring import composite as scoring


def segment_views(card: CardView) -> list[CardView]:
    """The card as its boards rank it: itself when it ran one segment, else one view per
    segment. An older card without per-segment scores stays whole."""
    covered = card.dataset.covered_segments or ()
    by_segment = (card.scores.model_extra or {}).get("by_segment")
    if len(covered) < 2 or not isinstance(by_segment, Mapping):
        return [card]
    if not all(isinstance(by_segment.get(s), Mapping) for s in covered):
        return [card]
    return [_one_segment(card, segment, by_segment[segment]) for segment in covered]


def _one_segment(card: CardView, segment: str, figures: Mapping[str, Any]) -> CardView:
    """``card`` narrowed to ``segment``: its scores, rows, entry count and coverage."""
    composite = figures.get("composite")
    interval = figures.get("composite_interval")
    scores = card.scores.model_copy(
        update={
            "total": figures.get("count"),
            "errors": figures.get("errors"),
            "composite": composite,
            "chrf_plus_plus": figures.get("chrf_plus_plus"),
            "exact_match_rate": figures.get("exact_match_rate"),
            # measured over the whole run only: not shown as if they were the segment's
            "fst_acceptance_rate": None,
            "semantic_score": None,
            "quality_tier": figures.get("quality_tier"),
            "cost_adjusted": scoring.cost_adjusted(composite, card.totals.cost_per_entry_usd),
            "confidence_intervals": (
                {"composite": Interval.model_validate(interval)}
                if isinstance(interval, Mapping)
                else None
            ),
            "by_domain": {},  # the card's domains mix its segments
        }
    )
    count = int(figures.get("count") or 0)
    return dataclasses.replace(
        card,
        dataset=dataclasses.replace(card.dataset, covered_segments=(segment,), entry_count=count),
        scores=scores,
        results=[r for r in card.results if str(r.get("segment")) == segment],
        coverage=_coverage_of(card, segment, count),
    )


def _coverage_of(card: CardView, segment: str, count: int) -> Coverage | None:
    """The card's coverage of one segment, as ``board_rules.why_not_ranked`` reads one."""
    found = segment_coverage(card.coverage, segment)
    if found is None:
        return card.coverage
    complete, why = found
    size = card.coverage.segments[segment].entries_in_segment if card.coverage else count
    return Coverage(
        complete=complete,
        entries_run=count,
        entries_in_corpus=size,
        reasons=[] if complete else [why],
        whole_corpus=False,
    )
