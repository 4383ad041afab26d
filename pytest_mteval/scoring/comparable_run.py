"""A run in the one form two runs are compared in, whichever harness wrote it.

A gate, ``mteval compare`` and the per-entry regression checks all need the same things from a
run: its rows keyed by entry id (in the shape of our per-entry records), its run-level metric
values, and per-entry statistics from which any metric can be recomputed over a subset of
entries and resampled. Our run cards and the reference harness's ``*_report.json`` both become
a :class:`Comparable`.

A reference-harness report is re-scored with OUR metric code from its own predictions (chrF++,
BLEU, TER, exact match), so that its numbers and ours come from one implementation; the
report's plugin metrics (FST validity, code-switching, hallucination...) come from other code
and are kept as ``reported_only``, never compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mteval.metrics import catalog, sacre
from pytest_mteval.metrics.bounds import bounded
from pytest_mteval.metrics.definition import family_stats
from pytest_mteval.metrics.entry_record import (
    EntryRecord,
    SegmentStats,
    new_record,
)
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.bootstrap import Statistic, of_definition, ratio_statistic

#: Metrics a reference-harness report is re-scored with, from its own predictions.
_HARNESS_METRICS: Final = (catalog.CHRF_PLUS_PLUS, catalog.BLEU, catalog.TER, catalog.EXACT_MATCH)
#: A reference-harness report's own corpus chrF++ may differ from ours by rounding only.
_ROUNDING: Final = 0.01


@dataclass
class Comparable:
    """One run, ready to be compared with another."""

    path: str
    origin: str  # "run card" or "reference-harness report"
    label: str
    dataset_sha256: str | None
    profile: str
    metrics: dict[str, float | None]
    composite: float | None
    rows: dict[str, EntryRecord]
    run_card_hash: str | None = None
    #: Entries the run counts as hallucinated, cross-entry findings included (the card's
    #: ``hallucination.hallucination_entries``; see ``entry_statistic``).
    hallucinated: frozenset[str] = frozenset()
    reported_only: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: A run of part of the corpus, or one stopped early (its card's ``coverage``): never a
    #: baseline (``cards/baseline.py``).
    partial: bool = False
    #: Run-level scores only, no entries (a foreign card): compared with a run of the same
    #: data at the run level, never paired per entry (``scoring/paired_comparison.py``).
    aggregate_only: bool = False

    def available(self) -> set[str]:
        """The registered metrics this run has a value for."""
        return {name for name in catalog.names() if self.metrics.get(name) is not None}

    def describe(self) -> str:
        if self.aggregate_only:
            return f"{self.path} ({self.origin}, {self.label}, run-level scores only)"
        return f"{self.path} ({self.origin}, {self.label}, {len(self.rows)} entries)"


def is_harness_report(raw: Mapping[str, Any]) -> bool:
    return isinstance(raw.get("entries"), list) and isinstance(raw.get("overall"), dict)


def recorded_profile(recorded: object, fst_measured: bool) -> str:
    """A card's scoring profile as recorded, else A when it measured FST acceptance."""
    if recorded in scoring.WEIGHTS:
        return str(recorded)
    return scoring.profile_for(fst_measured)


def from_harness_report(report: Mapping[str, Any], path: str) -> Comparable:
    """A reference-harness report, re-scored from its own predictions with our metric code."""
    rows: dict[str, EntryRecord] = {}
    for index, entry in enumerate(report["entries"]):
        row = harness_row(entry, index)
        rows[row["entry_id"]] = row
    ordered = list(rows.values())
    metrics: dict[str, float | None] = dict.fromkeys(catalog.names())
    metrics.update({d.name: d.score(ordered) for d in _HARNESS_METRICS})
    overall: Mapping[str, Any] = report.get("overall") or {}
    notes: list[str] = []
    theirs, ours = _number(overall.get("corpus_chrf")), metrics["chrf_plus_plus"]
    if theirs is not None and ours is not None and abs(theirs - ours) > _ROUNDING:
        notes.append(
            f"{path}: the report's own corpus chrF++ {theirs:.2f} differs from ours "
            f"{ours:.2f} re-scored from its predictions; ours is used"
        )
    config: Mapping[str, Any] = report.get("config") or {}
    intervals: Mapping[str, Any] = overall.get("confidence_intervals") or {}
    return Comparable(
        path=path,
        origin="reference-harness report",
        label=str(config.get("model") or report.get("run_id") or "?"),
        dataset_sha256=None,
        profile=scoring.PROFILE_B,
        metrics=metrics,
        composite=scoring.composite(metrics, scoring.PROFILE_B),
        rows=rows,
        reported_only={
            "composite_score": (intervals.get("composite_score") or {}).get("score"),
            "plugin_metrics": overall.get("plugin_metrics") or {},
        },
        notes=notes,
    )


def harness_row(entry: Mapping[str, Any], index: int = 0) -> EntryRecord:
    """One reference-harness entry as our record, scored by our code."""
    error = entry.get("error") or None
    predicted = entry.get("predicted")
    source = str(entry.get("source") or "")
    if error is not None or not isinstance(predicted, str):
        predicted = None
    else:  # a report's prediction is read as the harness reads a method's (metrics/bounds.py)
        predicted = bounded(source, predicted)
    row = new_record(
        str(entry["id"]),
        source,
        str(entry.get("expected") or ""),
        predicted,
        None if error is None else str(error),
        index=index,
        latency_s=entry.get("latency_s"),
    )
    row.update({"cost_usd": entry.get("cost_usd"), "fst_valid": None, "fst_rejected_words": None})
    row_stats(row)
    return row


def row_stats(row: EntryRecord) -> SegmentStats:
    """Every family's sufficient statistics of the row, kept on it (computed once)."""
    stats = {family: family_stats(row, family) for family in sacre.FAMILIES}
    row["stats"] = stats
    return stats


def entry_statistic(
    metric: str, rows: Sequence[Mapping[str, Any]], hallucinated: frozenset[str] = frozenset()
) -> Statistic | None:
    """``metric`` over ``rows`` as its definition reads and finalises it; None for a metric
    not registered or rows without per-entry statistics for it.

    ``hallucinated``: the entries the run flagged across entries (one output for many
    sources...), findings kept only in the card's hallucination list.
    """
    definition = catalog.get(metric)
    return None if definition is None else of_definition(definition, rows, hallucinated)


def constant_statistic(value: float, n_entries: int) -> Statistic:
    """A metric held at ``value`` under resampling (one without per-entry statistics)."""
    return ratio_statistic([value] * n_entries, [1.0] * n_entries)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
