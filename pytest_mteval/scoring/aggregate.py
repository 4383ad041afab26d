"""Run-level scores from per-entry records, on the controller.

Every metric's value is its definition's (``metrics/catalog.py``): corpus chrF++, BLEU and TER
from summed sufficient statistics (exactly sacrebleu's corpus scores). An entry whose
translation failed counts as an empty translation in corpus scores and as a miss in exact
match, so a method cannot improve its score by erroring.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pytest_mteval.metrics.catalog import BLEU, CHRF_PLUS_PLUS, EXACT_MATCH, TER
from pytest_mteval.metrics.definition import MetricDefinition
from pytest_mteval.metrics.entry_record import EntryRecord


def quantile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated quantile, None for no values.

    The definition of numpy's default (``method="linear"``), but not numpy's arithmetic: numpy
    interpolates from the upper neighbour when the fraction is 0.5 or more, which differs in the
    last bit for about 1 % of inputs, and a card's latencies must not change with the library.
    """
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def definition_scores(
    records: Sequence[EntryRecord], definitions: Iterable[MetricDefinition]
) -> dict[str, float | None]:
    """Each definition's score of the records (a plugin family's run-level metrics)."""
    return {d.name: d.score(records) for d in definitions}


def _error_count(records: Sequence[EntryRecord]) -> int:
    """How many of the records are errors (no translation scored)."""
    return sum(1 for r in records if r["error"] is not None)


def quality_scores(records: Sequence[EntryRecord]) -> dict[str, Any]:
    """Counts, rates and corpus scores of one group of records."""
    errors = _error_count(records)
    exact = sum(1 for r in records if r["exact_match"])
    ratios = [r["length_ratio"] for r in records if r["length_ratio"] is not None]
    return {
        "total": len(records),
        "errors": errors,
        "exact_matches": exact,
        **definition_scores(records, (EXACT_MATCH, CHRF_PLUS_PLUS, BLEU, TER)),
        "length_ratio": statistics.fmean(ratios) if ratios else None,
    }


def speed_scores(records: Sequence[EntryRecord], elapsed_s: float) -> dict[str, Any]:
    """Latency distribution and throughput (spec §3.4, §3.6)."""
    latencies = [float(s) for r in records if (s := r.get("latency_s")) is not None]
    translated = len(records) - _error_count(records)
    tokens = sum(_tokens(r) for r in records)
    return {
        "avg_latency_seconds": statistics.fmean(latencies) if latencies else None,
        "median_latency_seconds": quantile(latencies, 0.5),
        "p95_latency_seconds": quantile(latencies, 0.95),
        "entries_per_minute": translated / (elapsed_s / 60) if elapsed_s > 0 else None,
        "tokens_per_second": tokens / elapsed_s if elapsed_s > 0 and tokens else None,
    }


def breakdown(
    records: Sequence[EntryRecord],
    key: Callable[[EntryRecord], Any],
    extra: Callable[[Sequence[EntryRecord]], dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Quality scores per group (difficulty, provenance, domain), groups in sorted order;
    ``extra`` adds what the caller computes per group (the composite)."""
    groups: dict[str, list[EntryRecord]] = {}
    for record in records:
        value = key(record)
        groups.setdefault("unknown" if value is None else str(value), []).append(record)
    return {
        name: {**_group_scores(groups[name]), **(extra(groups[name]) if extra else {})}
        for name in sorted(groups)
    }


def _group_scores(records: Sequence[EntryRecord]) -> dict[str, Any]:
    """What a breakdown shows of a group: its counts, exact match and chrF++ (not BLEU and
    TER, whose per-entry tables would be built for every group only to be dropped)."""
    return {
        "count": len(records),
        "errors": _error_count(records),
        **definition_scores(records, (EXACT_MATCH, CHRF_PLUS_PLUS)),
    }


def _tokens(record: EntryRecord) -> int:
    usage = record.get("usage") or {}
    return int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
