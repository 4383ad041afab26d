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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.record import (
    EntryRecord,
    SegmentStats,
    as_records,
    new_record,
    number,
)
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.bootstrap import (
    Statistic,
    rate_statistic,
    ratio_statistic,
    sacre_statistic,
)

#: Card metrics computed from sacrebleu sufficient statistics, and their family.
SACRE_FAMILIES: Final = {"chrf_plus_plus": "chrf", "bleu": "bleu", "ter": "ter"}
#: Card metrics where a lower value is better.
LOWER_IS_BETTER: Final = frozenset({"ter", *scoring.LOWER_IS_BETTER})
#: Every metric name a gate may name (besides "composite").
GATEABLE: Final = frozenset(
    {*SACRE_FAMILIES, *scoring.WEIGHTS[scoring.PROFILE_A], *scoring.WEIGHTS[scoring.PROFILE_B]}
)
#: The sacrebleu metric of each family, configured as in ``metrics/sacre.py``.
_SACRE_METRICS: Final[dict[str, Callable[[], Any]]] = {
    "chrf": sacre.chrf_pp,
    "bleu": sacre.bleu_corpus,
    "ter": sacre.ter,
}
#: How each metric is made of per-entry fields, as its metric family aggregates it. A share of
#: all entries (an entry without the field counts as a miss) ...
_SHARE_OF_ALL: Final = {
    "exact_match_rate": "exact_match",
    "equivalent_match_rate": "equivalent_match",
}
#: ... a mean over the entries that have a value ...
_MEAN_OF_SCORED: Final = {
    "code_switching_rate": "code_switching_detected",
    "semantic_score": "semantic_score",
}
#: ... or a ratio of summed per-entry counts.
_RATIO_OF_COUNTS: Final = {
    "fst_acceptance_rate": ("fst_accepted_words", "fst_words"),
    "morphological_accuracy": ("morphology_reproduced", "morphology_units"),
    "orthographic_accuracy": ("orthography_valid_letters", "orthography_letters"),
    "terminology_adherence": ("terminology_present", "terminology_required"),
}
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

    def available(self) -> set[str]:
        """The gateable metrics this run has a value for."""
        return {name for name in GATEABLE if self.metrics.get(name) is not None}

    def describe(self) -> str:
        return f"{self.path} ({self.origin}, {self.label}, {len(self.rows)} entries)"


def is_harness_report(raw: Mapping[str, Any]) -> bool:
    return isinstance(raw.get("entries"), list) and isinstance(raw.get("overall"), dict)


def from_card(
    card: Mapping[str, Any], path: str, records: Sequence[Mapping[str, Any]] = ()
) -> Comparable:
    """Our run card (verified or freshly built) as a Comparable.

    ``records`` (the run's per-entry records, which carry sufficient statistics) spare
    recomputing the statistics of a card whose rows do not carry them.
    """
    scores: Mapping[str, Any] = card.get("scores") or {}
    profile = card_profile(card)
    metrics = {name: _number(scores.get(name)) for name in GATEABLE}
    recorded = _number(scores.get("composite"))
    rows = {str(row["entry_id"]): row for row in as_records(card.get("results") or [])}
    for record in records:
        row = rows.get(str(record.get("entry_id")))
        if row is not None and record.get("stats") and not row.get("stats"):
            row["stats"] = record["stats"]
    return Comparable(
        path=path,
        origin="run card",
        label=str(card.get("model_slug") or "?"),
        dataset_sha256=(card.get("dataset") or {}).get("sha256"),
        profile=profile,
        metrics=metrics,
        composite=recorded if recorded is not None else scoring.composite(metrics, profile),
        rows=rows,
        run_card_hash=card.get("run_card_hash") or None,
        hallucinated=frozenset(
            str(i) for i in (card.get("hallucination") or {}).get("hallucination_entries") or ()
        ),
    )


def card_profile(card: Mapping[str, Any]) -> str:
    """The card's scoring profile as recorded, else A when it measured FST acceptance."""
    scores: Mapping[str, Any] = card.get("scores") or {}
    recorded = scores.get("scoring_profile") or (card.get("scoring") or {}).get("profile")
    if recorded in scoring.WEIGHTS:
        return str(recorded)
    return scoring.profile_for(scores.get("fst_acceptance_rate") is not None)


def from_harness_report(report: Mapping[str, Any], path: str) -> Comparable:
    """A reference-harness report, re-scored from its own predictions with our metric code."""
    rows: dict[str, EntryRecord] = {}
    for index, entry in enumerate(report["entries"]):
        row = harness_row(entry, index)
        rows[row["entry_id"]] = row
    ordered = list(rows.values())
    corpus = sacre.corpus_scores([row_stats(r) for r in ordered]) if ordered else {}
    exact = sum(1 for r in ordered if r["exact_match"])
    metrics: dict[str, float | None] = dict.fromkeys(GATEABLE)
    metrics.update(
        chrf_plus_plus=corpus.get("chrf"),
        bleu=corpus.get("bleu"),
        ter=corpus.get("ter"),
        exact_match_rate=exact / len(ordered) if ordered else None,
    )
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
    if error is not None or not isinstance(predicted, str):
        predicted = None
    row = new_record(
        str(entry["id"]),
        str(entry.get("source") or ""),
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
    """Every family's sufficient statistics of the row (see :func:`family_stats`)."""
    return {family: family_stats(row, family) for family in sacre.FAMILIES}


def family_stats(row: EntryRecord, family: str) -> list[float]:
    """One family's statistics: the card's (or record's) own when it carries them, else
    computed from prediction and reference and kept on the row.

    Only the family asked for is computed: TER statistics cost twice chrF++ and BLEU together,
    and a composite needs chrF++ alone. An errored entry counts as an empty translation, as in
    the run's own corpus scores.
    """
    stats = row.get("stats") or {}
    if family not in stats:
        predicted = row.get("predicted")
        if row.get("error") is not None or not isinstance(predicted, str):
            predicted = ""
        metric = _SACRE_METRICS[family]()
        (found,) = metric._extract_corpus_statistics([predicted], [[str(row.get("expected"))]])
        stats = {**stats, family: [float(x) for x in found]}
        row["stats"] = stats
    return list(stats[family])


def entry_statistic(
    metric: str, rows: Sequence[EntryRecord], hallucinated: frozenset[str] = frozenset()
) -> Statistic | None:
    """``metric`` over ``rows`` as a resamplable statistic; None when rows have no per-entry
    field for it.

    ``hallucinated`` is the run's list of flagged entries: the hallucination rate also looks
    across entries (one output for many sources...), and those findings are kept only there,
    so an entry counts as hallucinated when its own flag is set or the list names it.
    """
    if not rows:
        return None
    if metric == "hallucination_rate":
        return _hallucination_statistic(rows, hallucinated)
    family = SACRE_FAMILIES.get(metric)
    if family is not None:
        return sacre_statistic(family, [family_stats(r, family) for r in rows])
    if metric in _SHARE_OF_ALL:
        key = _SHARE_OF_ALL[metric]
        if all(r.get(key) is None for r in rows):
            return None
        return rate_statistic([bool(r.get(key)) for r in rows])  # errored entries are misses
    if metric in _MEAN_OF_SCORED:
        key = _MEAN_OF_SCORED[metric]
        values = [number(r, key) for r in rows]
        if all(v is None for v in values):
            return None
        return rate_statistic(values)
    if metric in _RATIO_OF_COUNTS:
        part, whole = _RATIO_OF_COUNTS[metric]
        if all(r.get(whole) is None for r in rows):
            return None
        return ratio_statistic(
            [number(r, part) or 0.0 for r in rows], [number(r, whole) or 0.0 for r in rows]
        )
    return None


def _hallucination_statistic(
    rows: Sequence[EntryRecord], hallucinated: frozenset[str]
) -> Statistic | None:
    """The share of checked entries flagged, as ``metrics/hallucination.py`` aggregates it
    (errored entries, never checked, are not counted)."""
    flags = [row.get("hallucination_detected") for row in rows]
    if all(flag is None for flag in flags):
        return None
    return rate_statistic(
        [
            None if flag is None else bool(flag) or str(row.get("entry_id")) in hallucinated
            for flag, row in zip(flags, rows, strict=True)
        ]
    )


def constant_statistic(value: float, n_entries: int) -> Statistic:
    """A metric held at ``value`` under resampling (one without per-entry statistics)."""
    return ratio_statistic([value] * n_entries, [1.0] * n_entries)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
