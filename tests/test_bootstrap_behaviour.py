"""Bootstrap intervals (``scoring.bootstrap``): cases test_stats.py leaves open, found by
mutation testing. Expected bounds are order statistics picked here from the resamples by hand."""

from __future__ import annotations

import math

from pytest_mteval.scoring import bootstrap

# 0/1 outcomes of 40 entries (e.g. exact match), 26 of them 1
OUTCOMES = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 3 + [1, 0, 0, 1, 1, 0, 1, 0, 1, 0]


def _by_hand(values: list[float | None], confidence: float) -> tuple[float, float]:
    ordered = sorted(v for v in values if v is not None)
    outside = math.floor(len(ordered) * (1 - confidence) / 2 + 1e-9)
    return ordered[outside], ordered[len(ordered) - 1 - outside]


def test_the_confidence_level_asked_for_sets_the_interval():
    stats = {"exact_match_rate": bootstrap.rate_statistic(OUTCOMES)}
    samples = bootstrap.bootstrap_samples(stats, n_bootstrap=200, seed=7)["exact_match_rate"]
    for confidence in (0.5, 0.8, 0.99):
        out = bootstrap.confidence_intervals(stats, n_bootstrap=200, seed=7, confidence=confidence)[
            "exact_match_rate"
        ]
        assert (out["lower"], out["upper"]) == _by_hand(samples, confidence)
        assert out["confidence"] == confidence
        assert out["score"] == 26 / 40
    narrow = bootstrap.confidence_intervals(stats, n_bootstrap=200, seed=7, confidence=0.5)
    wide = bootstrap.confidence_intervals(stats, n_bootstrap=200, seed=7, confidence=0.99)
    assert narrow["exact_match_rate"]["lower"] > wide["exact_match_rate"]["lower"]
