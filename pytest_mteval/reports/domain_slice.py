"""A card's scores on one domain (spec §2.7), for a domain-filtered leaderboard.

The composite is the card's own ``by_domain`` figure; its interval is resampled from the
card's rows of that domain with the card's seed and resample count, from the same per-entry
statistics the run's own interval uses (``comparable.entry_statistic``). A card whose rows
carry no text (scores only) keeps its composite but gets no interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from pytest_mteval.metrics.entry_record import as_records
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.comparable_run import entry_statistic, recorded_profile


@dataclass(frozen=True)
class Slice:
    count: int
    composite: float | None
    lower: float | None
    upper: float | None
    chrf_plus_plus: float | None
    exact_match_rate: float | None


def domain_slice(card: Mapping[str, Any], domain: str) -> Slice | None:
    """The card's figures on ``domain``; None when the card has no entry of it."""
    scores: Mapping[str, Any] = card.get("scores") or {}
    group = (scores.get("by_domain") or {}).get(domain)
    if not isinstance(group, Mapping):
        return None
    lower, upper = _interval(card, domain)
    return Slice(
        count=int(group.get("count") or 0),
        composite=group.get("composite"),
        lower=lower,
        upper=upper,
        chrf_plus_plus=group.get("chrf_plus_plus"),
        exact_match_rate=group.get("exact_match_rate"),
    )


def _interval(card: Mapping[str, Any], domain: str) -> tuple[float | None, float | None]:
    scores: Mapping[str, Any] = card.get("scores") or {}
    rows = [
        r
        for r in as_records(card.get("results") or [])
        if str(r.get("domain") if r.get("domain") is not None else "unknown") == domain
    ]
    if not rows or any(not r.get("expected") for r in rows):
        return None, None  # text withheld: chrF++ cannot be recomputed per entry
    written = scores.get("scoring_profile") or (card.get("scoring") or {}).get("profile")
    profile = recorded_profile(written, scores.get("fst_acceptance_rate") is not None)
    hallucinated = frozenset(
        str(i) for i in (card.get("hallucination") or {}).get("hallucination_entries") or ()
    )
    statistics: dict[str, stats.Statistic] = {}
    for metric in scores.get("composite_metrics") or []:
        found = entry_statistic(str(metric), rows, hallucinated)
        if found is None:
            return None, None
        statistics[str(metric)] = found
    if not statistics:
        return None, None
    recorded: Mapping[str, Any] = (scores.get("confidence_intervals") or {}).get("composite") or {}
    seed = recorded.get("seed")
    found_intervals = stats.confidence_intervals(
        statistics,
        {"composite": partial(scoring.composite, profile=profile)},
        n_bootstrap=int(recorded.get("n_bootstrap") or stats.DEFAULT_RESAMPLES),
        seed=int(seed) if isinstance(seed, int) else stats.DEFAULT_SEED,
    )
    composite = found_intervals["composite"]
    return composite["lower"], composite["upper"]
