"""Edges of the scoring rules that mutation testing found unguarded (docs/testing.md)."""

from __future__ import annotations

import math

import pytest

from pytest_mteval.scoring import composite as scoring


@pytest.mark.parametrize("cost", [1.0, 0.5, 2.0])
def test_a_dollar_or_more_an_entry_is_divided_like_any_other_cost(cost):
    """SCORING.md: composite / max(1, log2(1 + cost x 1000)); only 0 and unknown are exempt."""
    assert scoring.cost_adjusted(0.8, cost) == pytest.approx(0.8 / math.log2(1 + cost * 1000))


@pytest.mark.parametrize(("threshold", "tier"), scoring.TIERS[:-1])
def test_float_noise_below_a_tier_boundary_still_reaches_it_but_a_real_shortfall_does_not(
    threshold, tier
):
    # Summing nine weighted metrics drifts by ~1e-16; a 1e-10 shortfall is still noise, a
    # 1e-8 one is a real (if tiny) miss of the boundary.
    assert scoring.quality_tier(threshold - 1e-10) == tier
    assert scoring.quality_tier(threshold - 1e-8) != tier
