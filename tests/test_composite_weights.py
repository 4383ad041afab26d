"""Each weight of the composite matters: moving one metric moves the composite by exactly that
metric's share (docs/SCORING.md), and two hand-worked examples use every metric of a profile.

The weights are read from the documentation's tables, not from ``scoring.WEIGHTS``, so a metric
silently dropped from the computation (or from the table the code uses) fails here.
"""

from __future__ import annotations

import itertools

import pytest
from test_scoring import _markdown_table_after

from pytest_mteval.scoring import composite as scoring

#: Scale and direction as docs/SCORING.md "Normalization" states them.
PERCENT = {"chrf_plus_plus"}
INVERTED = {"code_switching_rate", "hallucination_rate"}


def documented_weights(profile: str) -> dict[str, float]:
    return {name: float(w) for name, w in _markdown_table_after(f"### Profile {profile}")}


def raw(name: str, good: float) -> float:
    """The metric's own value that normalizes to ``good`` (0..1, higher is better)."""
    value = 1.0 - good if name in INVERTED else good
    return value * 100.0 if name in PERCENT else value


@pytest.mark.parametrize("profile", ["A", "B"])
def test_every_profile_metric_moves_the_composite_by_its_weight(profile):
    table = documented_weights(profile)
    assert set(table) == set(scoring.WEIGHTS[profile])
    base = {name: raw(name, 0.5) for name in table}
    before = scoring.composite(base, profile)
    assert before == pytest.approx(0.5)
    for name, weight in table.items():
        for good in (0.0, 0.9, 1.0):
            moved = {**base, name: raw(name, good)}
            after = scoring.composite(moved, profile)
            assert after is not None
            # every metric present: the weights sum to 1, so the share is the weight itself
            assert after - before == pytest.approx(weight * (good - 0.5), abs=1e-12), name


@pytest.mark.parametrize("profile", ["A", "B"])
def test_a_metric_alone_is_the_composite_and_with_one_other_its_share_is_renormalized(profile):
    table = documented_weights(profile)
    names = list(table)
    for name in names:
        assert scoring.composite({name: raw(name, 0.3)}, profile) == pytest.approx(0.3), name
    for first, second in itertools.pairwise(names):
        both = {first: raw(first, 1.0), second: raw(second, 0.0)}
        share = table[first] / (table[first] + table[second])
        assert scoring.composite(both, profile) == pytest.approx(share), (first, second)


def test_profile_a_hand_worked_with_every_metric():
    metrics = {
        "fst_acceptance_rate": 0.8,  # 0.25 x 0.8 = 0.200
        "morphological_accuracy": 0.6,  # 0.15 x 0.6 = 0.090
        "chrf_plus_plus": 50.0,  # 0.15 x 0.5 = 0.075
        "semantic_score": 0.7,  # 0.15 x 0.7 = 0.105
        "equivalent_match_rate": 0.4,  # 0.10 x 0.4 = 0.040
        "code_switching_rate": 0.1,  # 0.05 x 0.9 = 0.045
        "terminology_adherence": 0.5,  # 0.05 x 0.5 = 0.025
        "hallucination_rate": 0.2,  # 0.05 x 0.8 = 0.040
        "exact_match_rate": 0.3,  # 0.05 x 0.3 = 0.015
        "bleu": 12.0,  # reported beside the composite, never in it
    }
    assert scoring.composite(metrics, "A") == pytest.approx(0.635, abs=1e-12)


def test_profile_b_hand_worked_with_every_metric():
    metrics = {
        "semantic_score": 0.7,  # 0.25 x 0.7 = 0.175
        "chrf_plus_plus": 50.0,  # 0.25 x 0.5 = 0.125
        "equivalent_match_rate": 0.4,  # 0.15 x 0.4 = 0.060
        "exact_match_rate": 0.3,  # 0.10 x 0.3 = 0.030
        "code_switching_rate": 0.1,  # 0.10 x 0.9 = 0.090
        "terminology_adherence": 0.5,  # 0.05 x 0.5 = 0.025
        "hallucination_rate": 0.2,  # 0.05 x 0.8 = 0.040
        "orthographic_accuracy": 0.9,  # 0.05 x 0.9 = 0.045
        "fst_acceptance_rate": 0.0,  # Profile A only: ignored here
    }
    assert scoring.composite(metrics, "B") == pytest.approx(0.59, abs=1e-12)


@pytest.mark.parametrize("profile", ["A", "B"])
def test_composite_over_a_subset_weighs_only_that_subset(profile):
    table = documented_weights(profile)
    metrics = {name: raw(name, 0.2 + 0.05 * i) for i, name in enumerate(table)}
    for name in table:
        rest = [other for other in table if other != name]
        expected = sum(table[o] * (0.2 + 0.05 * list(table).index(o)) for o in rest) / sum(
            table[o] for o in rest
        )
        got = scoring.composite_over(metrics, profile, rest)
        assert got == pytest.approx(expected, abs=1e-12), name
