"""The numbers a run is judged by: the composite (SCORING.md), its confidence interval, the
quality tier, and the guards that cap the tier of a degenerate run.

Interval and composite come from the metrics' definitions (``metrics/catalog.py``), which the
card's scores, the baseline gate and ``mteval compare`` also use: one derivation for all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.guards import (
    DEFAULT_THRESHOLDS,
    cap_tier,
    output_languages,
    run_flags,
    wrong_language_rate,
)


def interval_metrics() -> tuple[str, ...]:
    """Metrics whose interval the card reports, besides the composite (their definitions'
    ``interval``: chrF++, BLEU and exact match among the built-ins)."""
    return tuple(d.name for d in catalog.definitions().values() if d.interval)


def statistics_of(
    records: Sequence[EntryRecord],
    scores: Mapping[str, Any],
    profile: str,
    hallucinated: frozenset[str] = frozenset(),
) -> dict[str, stats.Statistic]:
    """Per-entry statistics of every metric the composite and the intervals need: only the
    metrics the run measured (a metric family may record per-entry fields yet report null for
    the run, as equivalent match does without variants). ``hallucinated`` is the run's list
    of hallucinated entries, which holds the findings made across entries."""
    shown = interval_metrics()
    out: dict[str, stats.Statistic] = {}
    for metric in dict.fromkeys([*shown, *scoring.weights(profile)]):
        definition = catalog.get(metric)
        if definition is None or (metric not in shown and scores.get(metric) is None):
            continue
        found = stats.of_definition(definition, records, hallucinated)
        if found is not None:
            out[metric] = found
    return out


def judge_run(
    records: Sequence[EntryRecord],
    scores: Mapping[str, Any],
    profile: str,
    statistics: Mapping[str, stats.Statistic],
    cost_per_entry_usd: float | None,
    human_validated: bool = False,
    target_language: str = "",
) -> tuple[dict[str, Any], list[Any]]:
    """Scores to add to the card (composite, tier, intervals...) and the run's flags;
    ``statistics`` are :func:`statistics_of` the same records. Outputs are checked to be in
    ``target_language`` when it is given."""
    composite = scoring.composite({m: scores.get(m) for m in scoring.weights(profile)}, profile)
    shown = interval_metrics()
    languages = output_languages(records, target_language) if target_language else []
    flags = run_flags(records, DEFAULT_THRESHOLDS, languages, target_language)
    tier = scoring.quality_tier(composite)
    capped = cap_tier(tier, flags)
    intervals = stats.confidence_intervals(
        statistics, {"composite": partial(scoring.composite, profile=profile)}
    )
    return {
        "composite": composite,
        "scoring_profile": profile,
        "composite_metrics": scoring.available_metrics(scores, profile),
        "quality_tier": scoring.labelled_tier(capped, human_validated=human_validated),
        "quality_tier_uncapped": tier,
        "cost_adjusted": scoring.cost_adjusted(composite, cost_per_entry_usd),
        "wrong_language_rate": wrong_language_rate(languages),
        "confidence_intervals": {
            name: dict(intervals[name]) for name in (*shown, "composite") if name in intervals
        },
    }, list(flags)


def group_composite(
    statistics: Mapping[str, stats.Statistic], positions: Sequence[int], profile: str
) -> float | None:
    """The composite of a group of entries (a difficulty tier, a domain...): the run's
    per-entry statistics restricted to the group's ``positions``."""
    rows = list(positions)
    # one statistic's rows of the group at a time: a group may be the whole run, and copies of
    # every statistic's table at once were the peak of a large run's end
    values = {name: s.value(list(s.rows[rows].sum(axis=0))) for name, s in statistics.items()}
    return scoring.composite({m: values.get(m) for m in scoring.weights(profile)}, profile)
