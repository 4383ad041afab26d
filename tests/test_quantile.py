"""The latency quantiles of a card (scoring/aggregate.py) against numpy's linear quantile."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from pytest_mteval.scoring.aggregate import quantile


def test_matches_numpys_linear_quantile_to_the_last_bit_or_one_below() -> None:
    rng = random.Random(7)
    for size in range(1, 40):
        values = [rng.uniform(0.01, 30.0) for _ in range(size)]
        for q in (0.0, 0.25, 0.5, 0.95, 1.0):
            expected = float(np.quantile(values, q, method="linear"))
            assert quantile(values, q) == pytest.approx(expected, rel=0, abs=math.ulp(expected))


def test_interpolates_between_neighbours_from_the_lower_one() -> None:
    assert quantile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.5
    assert quantile([10.0, 20.0], 0.95) == 10.0 + 10.0 * 0.95
    assert quantile([5.0], 0.95) == 5.0
    assert quantile([], 0.5) is None
