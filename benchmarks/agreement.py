"""How well a metric agrees with expert scores at system level, with an honest interval.

- Pearson and Kendall tau-b between the systems' metric values and their mean MQM scores, and
  a 95 % percentile bootstrap interval for each: segments are resampled (the same draw for
  every system, as in the WMT metrics tasks), and each system's metric is recomputed from its
  per-entry statistics on the resample exactly as the card computes it (corpus chrF++ from
  summed n-gram counts, the composite from the metrics' resampled values).
- Pairwise accuracy (Kocmi et al., WMT 2021, the system-level measure of the WMT metrics
  tasks since then): the share of system pairs that the metric orders as the experts do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import combinations

import numpy as np
from scipy import stats as scistats

from pytest_mteval.metrics import catalog
from pytest_mteval.scoring import bootstrap
from pytest_mteval.scoring import composite as scoring

MQM = "__mqm__"
RESAMPLES = 1000
SEED = 12345


def correlation(xs: Sequence[float | None], ys: Sequence[float], kind: str) -> float | None:
    """Pearson or Kendall tau-b over the pairs where x is known; None when x is constant."""
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None]
    if len(pairs) < 3 or len({x for x, _ in pairs}) < 2 or len({y for _, y in pairs}) < 2:
        return None
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    result = scistats.pearsonr(a, b) if kind == "pearson" else scistats.kendalltau(a, b)
    value = float(result[0])
    return None if math.isnan(value) else value


def pairwise_accuracy(xs: Sequence[float | None], ys: Sequence[float]) -> float | None:
    """Share of system pairs (both known, experts not tied) the metric orders as the experts;
    a metric tie counts as a wrong order, as in the WMT definition."""
    pairs = [
        (a, b)
        for a, b in combinations(range(len(ys)), 2)
        if xs[a] is not None and xs[b] is not None and ys[a] != ys[b]
    ]
    if not pairs:
        return None
    known = [float(x) if x is not None else 0.0 for x in xs]
    right = [
        math.copysign(1, known[a] - known[b]) == math.copysign(1, ys[a] - ys[b])
        and known[a] != known[b]
        for a, b in pairs
    ]
    return sum(right) / len(pairs)


def mqm_statistic(scores: Sequence[float]) -> bootstrap.Statistic:
    """A system's mean MQM score in resamplable form (sum of scores, count)."""
    rows = np.array([[s, 1.0] for s in scores], dtype=float)
    return bootstrap.Statistic(rows, lambda sums: sums[0] / sums[1] if sums[1] else None)


def intervals(
    systems: Sequence[Mapping[str, bootstrap.Statistic]],
    profile: str,
    metrics: Sequence[str],
    resamples: int = RESAMPLES,
) -> dict[str, dict[str, tuple[float, float] | None]]:
    """metric -> {"pearson": (low, high), "kendall": (low, high)} over segment resamples;
    each system's statistics hold ``MQM`` and the metrics, rows in the same segment order."""
    derived: dict[str, Callable[[Mapping[str, float | None]], float | None]] = {
        "composite": partial(scoring.composite, profile=profile)
    }
    samples = [
        bootstrap.bootstrap_samples(dict(s), derived, n_bootstrap=resamples, seed=SEED)
        for s in systems
    ]
    out: dict[str, dict[str, tuple[float, float] | None]] = {}
    for metric in metrics:
        found: dict[str, list[float]] = {"pearson": [], "kendall": []}
        if all(metric in s for s in samples):
            for r in range(resamples):
                xs = [_oriented(metric, s[metric][r]) for s in samples]
                ys = [float(s[MQM][r]) for s in samples]  # type: ignore[arg-type]
                for kind, values in found.items():
                    value = correlation(xs, ys, kind)
                    if value is not None:
                        values.append(value)
        out[metric] = {
            kind: (
                (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5)))
                if len(v) >= resamples // 2
                else None
            )
            for kind, v in found.items()
        }
    return out


def _oriented(metric: str, value: float | None) -> float | None:
    if value is None:
        return None
    return -value if catalog.lower_is_better(metric) else value
