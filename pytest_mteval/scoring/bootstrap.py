"""Bootstrap confidence intervals and paired significance from per-entry statistics.

Every corpus-level value here is a function of column sums of per-entry rows: sacrebleu's
sufficient statistics for chrF++/BLEU/TER, numerator and denominator for a rate. A bootstrap
resample is then a weighted sum (resample counts times rows), never a re-run of sacrebleu,
so 1000 resamples of 10,000 entries take a fraction of a second. Derived values such as the
composite are recomputed from each resample's metrics. A statistic built here from plain
values (``sacre_statistic``, ``ratio_statistic``) is read by the metric definitions that read a
run's records (``metrics/definition.py``): one way to make per-entry rows.

numpy comes with sacrebleu (a dependency of it), and is used for the weighted sums.
With the same seed the resampled indexes are exactly those of ``sacrebleu --confidence`` and
``--paired-bs``, so their figures can be reproduced with sacrebleu's CLI.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypedDict

import numpy as np
import numpy.typing as npt

from pytest_mteval.metrics.catalog import BLEU, CHRF_PLUS_PLUS, TER
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts, Row, SacreFamily

#: sacrebleu's default seed (SACREBLEU_SEED), so intervals can be reproduced with its CLI.
DEFAULT_SEED: Final = 12345
DEFAULT_RESAMPLES: Final = 1000
DEFAULT_CONFIDENCE: Final = 0.95
#: Cells of the resample-count matrix held in memory at once (about 4 MB of float64; a block
#: takes about four times that while it is drawn and counted, at the end of a run).
_CHUNK_CELLS: Final = 500_000

#: The statistics the helpers below build from plain values are read by the definitions a
#: run's records are read by: the sacrebleu families' own, and a ratio of two counts.
_SACRE: Final = {
    d.statistics.family: d
    for d in (CHRF_PLUS_PLUS, BLEU, TER)
    if isinstance(d.statistics, SacreFamily)
}
_RATIO: Final = MetricDefinition("ratio", "ratio", RatioOfCounts("part", "whole"))

Rows = npt.NDArray[np.float64]
Metrics = Mapping[str, float | None]
#: A value computed from one resample's metrics (e.g. ``partial(scoring.composite, profile=...)``).
Derived = Callable[[Metrics], float | None]


@dataclass(frozen=True)
class Statistic:
    """A corpus-level value that is a function of the column sums of per-entry rows."""

    rows: Rows
    finalize: Callable[[Sequence[float]], float | None]

    def value(self, sums: Sequence[float]) -> float | None:
        return self.finalize(sums)

    @property
    def n_entries(self) -> int:
        return int(self.rows.shape[0])


def of_definition(
    definition: MetricDefinition, rows: Sequence[Row], flagged: frozenset[str] = frozenset()
) -> Statistic | None:
    """A metric over ``rows`` in resamplable form, read and finalised by its definition; None
    when the rows carry no statistics for it."""
    table = definition.table(rows, flagged) if rows else None
    return None if table is None else Statistic(table, definition.finalize)


def sacre_statistic(family: str, stats_rows: Sequence[Sequence[float]]) -> Statistic:
    """Corpus chrF++ ("chrf"), BLEU ("bleu") or TER ("ter") from per-segment statistics."""
    _as_rows(stats_rows)  # a malformed table is refused with its reason, before it is read
    return _read(_SACRE[family], [{"stats": {family: row}} for row in stats_rows])


def ratio_statistic(numerators: Sequence[float], denominators: Sequence[float]) -> Statistic:
    """Σ numerator / Σ denominator (e.g. accepted words / words); None when Σ denominator is 0."""
    if len(numerators) != len(denominators):
        raise ValueError("numerators and denominators must have one value per entry")
    rows = [{"part": n, "whole": d} for n, d in zip(numerators, denominators, strict=True)]
    return _read(_RATIO, rows)


def rate_statistic(values: Sequence[float | bool | None]) -> Statistic:
    """The mean over the entries that have a value (e.g. exact match); None is not counted."""
    return ratio_statistic(
        [0.0 if v is None else float(v) for v in values],
        [0.0 if v is None else 1.0 for v in values],
    )


def _read(definition: MetricDefinition, rows: Sequence[Row]) -> Statistic:
    """``rows`` read and finalised by ``definition``, as a run's records are; refused when
    they hold no statistics at all."""
    table = definition.table(rows)
    return Statistic(_as_rows([] if table is None else table), definition.finalize)


def point_values(statistics: Mapping[str, Statistic], derived: Mapping[str, Derived]) -> Metrics:
    """Every statistic on the full sample, then every derived value from those."""
    metrics: dict[str, float | None] = {
        name: stat.value(list(stat.rows.sum(axis=0))) for name, stat in statistics.items()
    }
    for name, fn in derived.items():
        metrics[name] = fn(metrics)
    return metrics


def bootstrap_samples(
    statistics: Mapping[str, Statistic],
    derived: Mapping[str, Derived] | None = None,
    n_bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, list[float | None]]:
    """Each statistic and derived value on each of ``n_bootstrap`` resamples of the entries."""
    derived = derived or {}
    n = _common_length(statistics)
    samples: dict[str, list[float | None]] = {name: [] for name in [*statistics, *derived]}
    for counts in _resample_counts(n, n_bootstrap, seed):
        sums = {name: counts @ stat.rows for name, stat in statistics.items()}
        for r in range(counts.shape[0]):
            metrics: dict[str, float | None] = {
                name: statistics[name].value(list(summed[r])) for name, summed in sums.items()
            }
            for name, fn in derived.items():
                metrics[name] = fn(metrics)
            for name, value in metrics.items():
                samples[name].append(value)
    return samples


class Interval(TypedDict):
    score: float | None
    lower: float | None
    upper: float | None
    n_bootstrap: int
    seed: int
    confidence: float


def confidence_intervals(
    statistics: Mapping[str, Statistic],
    derived: Mapping[str, Derived] | None = None,
    n_bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals around each full-sample value.

    ``score`` is the value on all entries; ``lower``/``upper`` are order statistics of the
    resample values, at the positions sacrebleu uses (26th and 975th of 1000 at 95 %).
    Resamples where a value is undefined (e.g. no entry with a denominator drawn) are left out.
    """
    derived = derived or {}
    points = point_values(statistics, derived)
    samples = bootstrap_samples(statistics, derived, n_bootstrap, seed)
    out: dict[str, Interval] = {}
    for name, values in samples.items():
        lower, upper = percentile_bounds(values, confidence)
        if points[name] is None:
            lower = upper = None
        out[name] = Interval(
            score=points[name],
            lower=lower,
            upper=upper,
            n_bootstrap=n_bootstrap,
            seed=seed,
            confidence=confidence,
        )
    return out


def percentile_bounds(
    values: Sequence[float | None], confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float | None, float | None]:
    """The lower and upper order statistics leaving (1 - confidence)/2 outside on each side."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    ordered = sorted(v for v in values if v is not None)
    if not ordered:
        return None, None
    outside = math.floor(len(ordered) * (1.0 - confidence) / 2.0 + 1e-9)
    return ordered[outside], ordered[len(ordered) - outside - 1]


class PairedResult(TypedDict):
    baseline: float | None
    candidate: float | None
    delta: float | None
    delta_lower: float | None
    delta_upper: float | None
    p_value: float | None
    n_bootstrap: int
    seed: int


def paired_bootstrap(
    baseline: Mapping[str, Statistic],
    candidate: Mapping[str, Statistic],
    derived: Mapping[str, Derived] | None = None,
    n_bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, PairedResult]:
    """Paired bootstrap test of candidate against baseline, as ``sacrebleu --paired-bs``.

    Both maps hold the same metrics over the same entries in the same order (the entries the
    two runs have in common). Both runs are scored on the same resamples; the p-value is the
    share of resamples whose centred absolute difference reaches the observed one (with +1
    smoothing): the chance of a difference this large between runs of the same process.
    ``delta_lower``/``delta_upper`` bound candidate - baseline over the resamples.
    """
    if set(baseline) != set(candidate):
        raise ValueError("baseline and candidate must have the same metrics")
    if _common_length(baseline) != _common_length(candidate):
        raise ValueError("baseline and candidate must cover the same entries")
    derived = derived or {}
    base_points = point_values(baseline, derived)
    cand_points = point_values(candidate, derived)
    base_samples = bootstrap_samples(baseline, derived, n_bootstrap, seed)
    cand_samples = bootstrap_samples(candidate, derived, n_bootstrap, seed)
    out: dict[str, PairedResult] = {}
    for name in base_samples:
        b, c = base_points[name], cand_points[name]
        diffs = [
            None if x is None or y is None else y - x
            for x, y in zip(base_samples[name], cand_samples[name], strict=True)
        ]
        lower, upper = percentile_bounds(diffs, confidence)
        defined = b is not None and c is not None
        out[name] = PairedResult(
            baseline=b,
            candidate=c,
            delta=c - b if b is not None and c is not None else None,
            delta_lower=lower if defined else None,
            delta_upper=upper if defined else None,
            p_value=_paired_p_value(b, c, diffs),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    return out


def _paired_p_value(
    baseline: float | None, candidate: float | None, diffs: Sequence[float | None]
) -> float | None:
    defined = np.array([abs(d) for d in diffs if d is not None], dtype=np.float64)
    if baseline is None or candidate is None or defined.size == 0:
        return None
    observed = abs(candidate - baseline)
    centred = defined - defined.mean()
    # ">=" where sacrebleu has ">": the same counts, except that a run compared with itself
    # gets p = 1 here instead of sacrebleu's "significant" p = 1/(n + 1).
    exceed = int(np.count_nonzero(centred >= observed))
    return (exceed + 1) / (defined.size + 1)


def _resample_counts(n: int, n_bootstrap: int, seed: int) -> Iterator[Rows]:
    """How often each entry is drawn, one row per resample, in memory-bounded chunks.

    Indexes are drawn as sacrebleu draws them (``default_rng(seed).choice(n, (B, n))``);
    drawing row blocks one after another yields the same stream as one big draw.
    """
    if n <= 0:
        raise ValueError("cannot resample an empty set of entries")
    if n_bootstrap <= 0:
        raise ValueError(f"n_bootstrap must be positive, got {n_bootstrap}")
    rng = np.random.default_rng(seed)
    block = max(1, _CHUNK_CELLS // n)
    done = 0
    while done < n_bootstrap:
        rows = min(block, n_bootstrap - done)
        indexes = rng.choice(n, size=(rows, n), replace=True)
        flat = (indexes + np.arange(rows)[:, None] * n).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
        yield counts.astype(np.float64)
        done += rows


def _common_length(statistics: Mapping[str, Statistic]) -> int:
    lengths = {stat.n_entries for stat in statistics.values()}
    if len(lengths) != 1:
        raise ValueError(f"statistics must cover the same entries, got lengths {sorted(lengths)}")
    return lengths.pop()


def _as_rows(rows: Sequence[Sequence[float]] | Rows) -> Rows:
    array = np.asarray(rows, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError("per-entry statistics must be a non-empty table of equal-length rows")
    return array
