"""What a run-level metric IS, in one frozen object, sacrebleu's way.

A :class:`MetricDefinition` says how the metric's per-entry statistics are read from an entry
record (or a card's result row), that they sum column by column over entries, and how the
score is finalised from those sums; with its card name, label, scale and direction. Every
consumer (the card's scores, confidence intervals, breakdowns, the gate, ``mteval compare``,
the composite's direction, the reports' labels) uses this one object, so no two derivations
can disagree: resampling an interval or comparing two runs is finalising resampled sums.

The kinds of statistics: a sacrebleu family's sufficient statistics, a share of all entries,
a mean over the entries that have a value, a ratio of summed counts, and the share of checked
entries flagged by their own field or by a finding the run made across entries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.entry_record import record_family_stats

#: An entry record or a card's result row.
Row = Mapping[str, Any]
#: Per-entry statistics: one row per entry, one column per summed quantity.
Table = npt.NDArray[np.float64]
#: When the terminal summary shows a metric: on every run, when the run measured it, or never
#: (the card, the HTML report, the gate and ``mteval compare`` have it all the same).
Shown = Literal["always", "when_measured", "never"]


class Statistics(Protocol):
    """How a metric's per-entry statistics are read, and its score finalised from their sums."""

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        """One row of statistics per entry; None when the rows hold no per-entry field for the
        metric (a card of a run that did not measure it, a report that does not record it).
        ``flagged``: entry ids the run flagged in findings made across entries."""
        ...

    def finalize(self, sums: Sequence[float]) -> float | None: ...


def field_value(row: Row, field: str) -> Any:
    """A row's field; a dotted name reaches into nested objects (``plugin_metrics.x.hits``)."""
    if field in row or "." not in field:
        return row.get(field)
    value: Any = row
    for part in field.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def ratio(sums: Sequence[float]) -> float | None:
    """Σ numerator / Σ denominator; None when nothing was counted."""
    numerator, denominator = sums
    return float(numerator / denominator) if denominator else None


def _table(rows: Sequence[Sequence[float]]) -> Table:
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)


def family_stats(row: Row, family: str) -> list[float]:
    """One sacrebleu family's statistics of a row: the row's own when it carries them, else
    computed from prediction and reference (the row is left as it is).

    Only the family asked for is computed: TER statistics cost twice chrF++ and BLEU together,
    and a composite needs chrF++ alone. An errored entry counts as an empty translation.
    """
    own = record_family_stats(row, family)
    if own is None:
        predicted = row.get("predicted")
        if row.get("error") is not None or not isinstance(predicted, str):
            predicted = ""
        return sacre.family_segment_stats(family, predicted, str(row.get("expected")))
    return list(own)


@dataclass(frozen=True)
class SacreFamily:
    """Corpus chrF++ ("chrf"), BLEU ("bleu") or TER ("ter") from sufficient statistics:
    exactly sacrebleu's ``corpus_score``. An errored entry counts as an empty translation."""

    family: str

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        if not rows:
            return None
        family = self.family
        return _table(
            [
                own
                if (own := record_family_stats(row, family)) is not None
                else family_stats(row, family)
                for row in rows
            ]
        )

    def finalize(self, sums: Sequence[float]) -> float | None:
        return sacre.corpus_score(self.family, sums)


@dataclass(frozen=True)
class ShareOfAll:
    """The share of all entries whose field is true; an entry without it (an errored one)
    counts as a miss, so a method cannot raise the share by erroring."""

    field: str

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        if not rows:
            return None
        return _table([[1.0 if field_value(r, self.field) else 0.0, 1.0] for r in rows])

    def finalize(self, sums: Sequence[float]) -> float | None:
        return ratio(sums)


@dataclass(frozen=True)
class MeanOfScored:
    """The mean of a per-entry value over the entries that have one (a bool counts 0 or 1)."""

    field: str

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        values = [field_value(r, self.field) for r in rows]
        if all(v is None for v in values):
            return None
        return _table([[0.0, 0.0] if v is None else [float(v), 1.0] for v in values])

    def finalize(self, sums: Sequence[float]) -> float | None:
        return ratio(sums)


@dataclass(frozen=True)
class RatioOfCounts:
    """Σ part / Σ whole of per-entry counts (accepted words / words...)."""

    part: str
    whole: str

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        wholes = [field_value(r, self.whole) for r in rows]
        if all(w is None for w in wholes):
            return None
        return _table(
            [
                [float(field_value(r, self.part) or 0), float(w or 0)]
                for r, w in zip(rows, wholes, strict=True)
            ]
        )

    def finalize(self, sums: Sequence[float]) -> float | None:
        return ratio(sums)


@dataclass(frozen=True)
class FlaggedShare:
    """The share of checked entries (``field`` not None) that are flagged: by their own
    ``field``, or because the run's findings across entries name them (one output for many
    sources...). Entries never checked (errored ones) are not counted."""

    field: str

    def read(self, rows: Sequence[Row], flagged: frozenset[str]) -> Table | None:
        flags = [field_value(r, self.field) for r in rows]
        if all(flag is None for flag in flags):
            return None
        return _table(
            [
                [0.0, 0.0]
                if flag is None
                else [1.0 if flag or str(r.get("entry_id")) in flagged else 0.0, 1.0]
                for flag, r in zip(flags, rows, strict=True)
            ]
        )

    def finalize(self, sums: Sequence[float]) -> float | None:
        return ratio(sums)


@dataclass(frozen=True)
class MetricDefinition:
    """One run-level metric. ``name`` is its key in the card's ``scores``; ``scale`` the top
    of its range (100 for sacrebleu's points, 1 for shares); ``interval`` whether the card
    reports its bootstrap interval; ``shown`` when the terminal summary shows it, at place
    ``shown_at`` among those shown alike (smaller first; see ``catalog.shown``);
    ``card_keys`` the other keys of the card's ``scores`` written with it (a built-in family's
    counts and evidence: ``fst_words``...), which no plugin's metric may take."""

    name: str
    label: str
    statistics: Statistics
    scale: float = 1.0
    higher_is_better: bool = True
    interval: bool = False
    shown: Shown = "when_measured"
    shown_at: int = 0
    card_keys: tuple[str, ...] = ()

    def table(self, rows: Sequence[Row], flagged: frozenset[str] = frozenset()) -> Table | None:
        """Per-entry statistics of ``rows`` (see :meth:`Statistics.read`)."""
        return self.statistics.read(rows, flagged)

    def finalize(self, sums: Sequence[float]) -> float | None:
        """The score of entries whose statistics summed to ``sums``."""
        return self.statistics.finalize(sums)

    def score(self, rows: Sequence[Row], flagged: frozenset[str] = frozenset()) -> float | None:
        """The score of ``rows``: their statistics summed exactly, finalised; None when the
        rows carry no statistics for it. Counts sum exactly in float64; other values (a mean
        of cosines) are summed with ``math.fsum``, so the order of entries cannot matter."""
        table = self.table(rows, flagged)
        if table is None:
            return None
        if np.array_equal(table, np.round(table)):
            return self.finalize(table.sum(axis=0).tolist())
        return self.finalize([math.fsum(column) for column in table.T.tolist()])

    def normalized(self, value: float) -> float:
        """The value on 0..1, higher is better (unclamped): how the composite weighs it."""
        number = value / self.scale
        return number if self.higher_is_better else 1.0 - number

    def worsening(self, delta: float) -> float:
        """How much worse a change of ``delta`` (now - before) is; positive when worse."""
        return -delta if self.higher_is_better else delta

    @property
    def points(self) -> bool:
        """On a 0-100 scale (shown with 2 decimals), rather than a share."""
        return self.scale > 1.0
