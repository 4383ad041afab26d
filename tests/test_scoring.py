"""The composite, tiers and cost adjustment, against SCORING.md's own figures and formulas."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from pytest_mteval.scoring import composite as scoring

DOCS = Path(__file__).resolve().parent.parent / "docs" / "SCORING.md"


def _markdown_table_after(heading: str) -> list[list[str]]:
    """Rows of the first markdown table after ``heading`` (header and rule excluded)."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, f"no table under {heading!r}"
    assert re.fullmatch(r"-+", rows[1][0]), "second row must be the header rule"
    return rows[2:]


@pytest.mark.parametrize("profile", ["A", "B"])
def test_docs_weight_table_equals_code_table(profile):
    rows = _markdown_table_after(f"### Profile {profile}")
    documented = [(name, float(weight)) for name, weight in rows]
    assert documented == list(scoring.WEIGHTS[profile].items())


def test_docs_tier_table_equals_code_table():
    rows = _markdown_table_after("## Quality tiers")
    assert [(float(at_least), name) for name, at_least in rows] == list(scoring.TIERS)


@pytest.mark.parametrize("profile", ["A", "B"])
def test_each_profile_weights_sum_to_one(profile):
    assert math.fsum(scoring.WEIGHTS[profile].values()) == pytest.approx(1.0)


def test_profile_a_structural_metrics_carry_forty_percent():
    table = scoring.WEIGHTS["A"]
    assert table["fst_acceptance_rate"] + table["morphological_accuracy"] == pytest.approx(0.40)


def test_worked_example_from_the_spec():
    metrics = {"fst_acceptance_rate": 1.0, "chrf_plus_plus": 80.0, "exact_match_rate": 0.6}
    expected = (0.25 * 1.0 + 0.15 * (80.0 / 100) + 0.05 * 0.6) / (0.25 + 0.15 + 0.05)
    assert scoring.composite(metrics, "A") == pytest.approx(expected)
    assert round(expected, 4) == 0.8889


def test_missing_metrics_named_as_none_are_renormalized_away():
    with_nones = {name: None for name in scoring.WEIGHTS["A"]}
    with_nones.update({"fst_acceptance_rate": 1.0, "chrf_plus_plus": 80.0, "exact_match_rate": 0.6})
    assert scoring.composite(with_nones, "A") == pytest.approx(0.8888889, abs=1e-6)


def _perfect(profile: str) -> dict[str, float]:
    perfect = {}
    for name in scoring.WEIGHTS[profile]:
        if name in scoring.LOWER_IS_BETTER:
            perfect[name] = 0.0
        elif name in scoring.PERCENT_SCALE:
            perfect[name] = 100.0
        else:
            perfect[name] = 1.0
    return perfect


@pytest.mark.parametrize("profile", ["A", "B"])
def test_all_metrics_perfect_gives_one(profile):
    assert scoring.composite(_perfect(profile), profile) == pytest.approx(1.0)


def test_lower_is_better_metrics_are_inverted():
    # Profile B with only hallucination: 30 % hallucinated is 0.70 good.
    assert scoring.composite({"hallucination_rate": 0.3}, "B") == pytest.approx(0.7)
    assert scoring.composite({"code_switching_rate": 0.0}, "B") == pytest.approx(1.0)


def test_profile_b_ignores_fst_metrics_and_reported_only_metrics():
    metrics = {"fst_acceptance_rate": 0.0, "bleu": 3.0, "ter": 120.0, "chrf_plus_plus": 50.0}
    assert scoring.composite(metrics, "B") == pytest.approx(0.5)
    assert scoring.available_metrics(metrics, "B") == ["chrf_plus_plus"]


def test_nothing_available_gives_none_and_unscored():
    assert scoring.composite({}, "A") is None
    assert scoring.composite({"bleu": 40.0, "semantic_score": None}, "B") is None
    assert scoring.quality_tier(None) == "unscored"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_input_is_rejected_naming_the_metric(bad):
    with pytest.raises(ValueError, match="semantic_score"):
        scoring.composite({"chrf_plus_plus": 50.0, "semantic_score": bad}, "B")


def test_out_of_range_values_are_clamped():
    assert scoring.composite({"chrf_plus_plus": 130.0}, "A") == pytest.approx(1.0)
    assert scoring.composite({"exact_match_rate": -0.2}, "A") == pytest.approx(0.0)
    assert scoring.composite({"hallucination_rate": 1.5}, "B") == pytest.approx(0.0)
    clamped = {"chrf_plus_plus": 130.0, "exact_match_rate": 0.5}
    expected = (0.15 * 1.0 + 0.05 * 0.5) / 0.20
    assert scoring.composite(clamped, "A") == pytest.approx(expected)


def test_unknown_profile_is_an_error():
    with pytest.raises(ValueError, match="profile"):
        scoring.composite({"chrf_plus_plus": 50.0}, "C")


def test_available_metrics_in_table_order():
    metrics = {"exact_match_rate": 0.1, "chrf_plus_plus": 40.0, "semantic_score": None}
    assert scoring.available_metrics(metrics, "A") == ["chrf_plus_plus", "exact_match_rate"]
    assert scoring.available_metrics(metrics, "B") == ["chrf_plus_plus", "exact_match_rate"]


def test_composite_over_shared_metrics_compares_like_with_like():
    baseline = {"chrf_plus_plus": 60.0, "exact_match_rate": 0.2}
    current = {"chrf_plus_plus": 60.0, "exact_match_rate": 0.2, "semantic_score": 0.9}
    # Over everything, the new metric alone moves the composite...
    assert scoring.composite(current, "B") != pytest.approx(scoring.composite(baseline, "B"))
    # ...over the shared metrics the two runs are equal, as they should be.
    shared = set(scoring.available_metrics(baseline, "B")) & set(
        scoring.available_metrics(current, "B")
    )
    expected = (0.25 * 0.60 + 0.10 * 0.2) / 0.35
    assert scoring.composite_over(current, "B", shared) == pytest.approx(expected)
    assert scoring.composite_over(baseline, "B", shared) == pytest.approx(expected)
    assert scoring.composite_over(current, "B", set()) is None


@pytest.mark.parametrize(
    ("value", "tier"),
    [
        (1.0, "fluent"),
        (0.85, "fluent"),
        (0.8499, "deployable"),
        (0.70, "deployable"),
        (0.6999, "functional"),
        (0.50, "functional"),
        (0.4999, "emerging"),
        (0.30, "emerging"),
        (0.2999, "baseline"),
        (0.0, "baseline"),
    ],
)
def test_tier_boundaries(value, tier):
    assert scoring.quality_tier(value) == tier


@pytest.mark.parametrize("profile", ["A", "B"])
@pytest.mark.parametrize(
    ("value", "tier"), [(0.85, "fluent"), (0.70, "deployable"), (0.30, "emerging")]
)
def test_every_metric_exactly_at_a_boundary_reaches_that_tier(profile, value, tier):
    metrics = {}
    for name in scoring.WEIGHTS[profile]:
        if name in scoring.LOWER_IS_BETTER:
            metrics[name] = 1.0 - value
        elif name in scoring.PERCENT_SCALE:
            metrics[name] = 100.0 * value
        else:
            metrics[name] = value
    assert scoring.quality_tier(scoring.composite(metrics, profile)) == tier


@pytest.mark.parametrize("bad", [math.nan, -0.01, 1.01])
def test_tier_of_an_impossible_composite_is_an_error(bad):
    with pytest.raises(ValueError, match="composite"):
        scoring.quality_tier(bad)


def test_northern_sami_case_from_the_spec_is_functional_before_guards():
    # The reference's degenerate run: 0.6244 is "functional" by the table alone, which is
    # why guards.cap_tier exists (tested in test_guards.py).
    assert scoring.quality_tier(0.6244) == "functional"


@pytest.mark.parametrize("tier", ["fluent", "deployable"])
def test_deployable_or_fluent_without_human_validation_is_a_candidate(tier):
    assert scoring.labelled_tier(tier, human_validated=False) == (
        "deployable (candidate, needs community review)"
    )
    assert scoring.labelled_tier(tier, human_validated=True) == tier


@pytest.mark.parametrize("tier", ["functional", "emerging", "baseline", "unscored"])
def test_lower_tiers_need_no_validation(tier):
    assert scoring.labelled_tier(tier, human_validated=False) == tier


def test_cost_adjusted_formula_and_floor():
    assert scoring.cost_adjusted(0.8, None) == 0.8
    assert scoring.cost_adjusted(0.8, 0.0) == 0.8
    # Below $0.001 an entry the floor keeps the composite (no multiplication by ~37).
    assert scoring.cost_adjusted(0.8, 0.00001) == pytest.approx(0.8)
    assert scoring.cost_adjusted(0.8, 0.001) == pytest.approx(0.8)
    assert scoring.cost_adjusted(0.8, 0.003) == pytest.approx(0.8 / math.log2(4.0))
    assert scoring.cost_adjusted(None, 0.003) is None


@pytest.mark.parametrize("bad", [math.nan, math.inf, -0.001])
def test_cost_adjusted_rejects_impossible_costs(bad):
    with pytest.raises(ValueError, match="cost"):
        scoring.cost_adjusted(0.5, bad)


def test_profile_for():
    assert scoring.profile_for(has_fst=True) == "A"
    assert scoring.profile_for(has_fst=False) == "B"
