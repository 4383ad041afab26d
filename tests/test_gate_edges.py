"""Edges of the gate's verdict that mutation testing found unguarded (docs/testing.md): the
floor exactly met, a run with no composite, a failing gate that still names its baseline."""

from __future__ import annotations

import copy
import json
import math

import pytest
from replayed_runs import GEMINI_SME, GPT55, HAIKU, card_dict, replay_card
from test_composite_weights import documented_weights
from test_gate import _with_fst

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.gate import evaluate_gate, evaluate_runs
from pytest_mteval.cards.runcard import built
from pytest_mteval.metrics import catalog
from pytest_mteval.scoring.gate_options import GateOptionError, GateOptions, parse_metric_gate


def test_a_composite_exactly_at_the_floor_passes_and_is_shown():
    card = card_dict(replay_card(GPT55))
    composite = card["scores"]["composite"]
    verdict = evaluate_gate(None, built(card), GateOptions(fail_under=composite))
    assert verdict.passed
    (row,) = verdict.rows
    assert (row.metric, row.now, row.passed, row.verdict) == (
        "composite (this run)",
        composite,
        True,
        "pass",
    )


def test_a_run_without_a_composite_fails_any_floor():
    card = copy.deepcopy(card_dict(replay_card(GPT55)))
    # nothing the composite is made of was measured
    card["scores"] = {**card["scores"], **dict.fromkeys([*catalog.names(), "composite"])}
    verdict = evaluate_gate(None, built(card), GateOptions(fail_under=0.0))
    assert not verdict.passed
    (row,) = verdict.rows
    assert (row.now, row.passed, row.verdict) == (None, False, "FAIL: this run has no composite")


def test_a_gate_that_cannot_be_evaluated_still_names_its_baseline_or_none():
    broken = {**card_dict(replay_card(GPT55)), "results": [{"no": "entry id"}]}
    baseline = read_run(GPT55)
    against = evaluate_gate(baseline, built(broken), GateOptions())
    assert (against.passed, against.baseline) == (False, baseline.describe())
    alone = evaluate_gate(None, built(broken), GateOptions())
    assert (alone.passed, alone.baseline) == (False, None)
    assert "could not be evaluated" in alone.notes[0]


def test_an_unknown_metric_in_a_gate_lists_every_gateable_name():
    known = {"composite", "chrf_plus_plus", "bleu", "ter"}
    known |= set(documented_weights("A")) | set(documented_weights("B"))
    with pytest.raises(GateOptionError) as caught:
        parse_metric_gate("chrf:1")
    assert str(caught.value) == (
        f"unknown metric 'chrf' in a gate; known: {', '.join(sorted(known))}"
    )


def test_the_recorded_options_are_plain_json():
    gates = {"ter": 2.0}
    recorded = GateOptions(metric_gates=gates, fail_under=0.5).to_json()
    assert set(recorded) == {
        "max_drop",
        "fail_under",
        "metric_gates",
        "significance",
        "n_bootstrap",
        "seed",
        "confidence",
    }
    assert recorded["metric_gates"] == gates
    assert recorded["metric_gates"] is not gates
    assert json.loads(json.dumps(recorded)) == recorded
    assert (recorded["fail_under"], recorded["max_drop"], recorded["significance"]) == (
        0.5,
        0.0,
        0.05,
    )


def test_the_verdict_recorded_on_the_card_has_every_field():
    baseline = read_run(GPT55)
    card = card_dict(replay_card(GPT55))
    verdict = evaluate_gate(baseline, built(card), GateOptions(significance=0))
    recorded = verdict.to_json()
    assert set(recorded) == {
        "passed",
        "baseline",
        "baseline_run_card_hash",
        "options",
        "common_entries",
        "shared_metrics",
        "metrics",
        "notes",
    }
    assert recorded["passed"] is True
    assert recorded["baseline"] == baseline.describe()
    assert recorded["common_entries"] == len(card["results"]) == 47
    assert recorded["shared_metrics"] == verdict.shared_metrics
    assert "chrf_plus_plus" in recorded["shared_metrics"]
    assert recorded["notes"] == verdict.notes
    assert [row["metric"] for row in recorded["metrics"]] == ["composite"]


def _only_row(verdict, metric):
    (row,) = [r for r in verdict.rows if r.metric == metric]
    return row


def test_each_reason_a_comparison_is_impossible_is_said_exactly():
    apart = evaluate_runs(read_run(GEMINI_SME), read_run(GPT55), GateOptions())
    row = _only_row(apart, "composite")
    assert (row.passed, row.verdict) == (False, "FAIL: no entry in common with the baseline")

    lacking = evaluate_runs(
        read_run(GPT55), read_run(HAIKU), GateOptions(metric_gates={"fst_acceptance_rate": 0.1})
    )
    row = _only_row(lacking, "fst_acceptance_rate")
    assert (row.passed, row.verdict) == (False, "FAIL: cannot compare, not measured by both runs")

    bare = copy.deepcopy(read_run(GPT55))
    bare.metrics = dict.fromkeys(bare.metrics)  # measured nothing the composite is made of
    nothing = evaluate_runs(bare, read_run(HAIKU), GateOptions())
    row = _only_row(nothing, "composite")
    assert (row.passed, row.verdict) == (False, "FAIL: cannot compare, no metric in common")


def test_a_gate_that_cannot_be_evaluated_says_which_error_and_keeps_its_options():
    broken = {**card_dict(replay_card(GPT55)), "results": [{"no": "entry id"}]}
    options = GateOptions(max_drop=0.5, significance=0.01)
    verdict = evaluate_gate(None, built(broken), options)
    assert verdict.notes == ["the gate could not be evaluated: KeyError: 'entry_id'"]
    assert verdict.options == options
    assert verdict.to_json()["options"]["max_drop"] == 0.5


# --- the gate's boundaries at unit level (the session tests pin them too, but cost seconds) ---


def _gated(**options):
    return evaluate_gate(
        read_run(replay_card(GPT55)), built(card_dict(replay_card(HAIKU))), GateOptions(**options)
    )


def test_a_zero_drop_with_the_test_off_passes_plainly():
    path = replay_card(GPT55)
    verdict = evaluate_gate(read_run(path), built(card_dict(path)), GateOptions(significance=0))
    row = _only_row(verdict, "composite")
    assert (row.delta, row.passed, row.verdict) == (0.0, True, "pass")
    assert verdict.baseline == read_run(path).describe()


def test_a_drop_exactly_at_max_drop_passes_and_one_float_more_fails():
    drop = -_only_row(_gated(significance=0, max_drop=1.0), "composite").delta
    assert drop > 0.01
    at = _only_row(_gated(significance=0, max_drop=drop), "composite")
    assert (at.passed, at.verdict) == (True, "pass (within the allowed drop)")
    limit = math.nextafter(drop, 0)
    over = _only_row(_gated(significance=0, max_drop=limit), "composite")
    assert (over.passed, over.p_value) == (False, None)
    assert over.verdict == f"FAIL: dropped {drop:.4g} > {limit:g}"


def test_a_p_value_exactly_at_the_significance_passes_and_below_it_fails():
    p_value = _only_row(_gated(), "composite").p_value
    assert p_value is not None
    at = _only_row(_gated(significance=p_value), "composite")
    assert (at.passed, at.verdict) == (True, f"pass (drop not significant, p >= {p_value:g})")
    stricter = math.nextafter(p_value, 1)
    below = _only_row(_gated(significance=stricter), "composite")
    assert below.passed is False
    assert below.verdict.endswith(f", p < {stricter:g}")


def test_the_resampling_options_reach_the_bootstrap():
    base = _only_row(_gated(), "composite")
    reseeded = _only_row(_gated(seed=7), "composite")
    assert (reseeded.ci_lower, reseeded.ci_upper) != (base.ci_lower, base.ci_upper)
    narrow = _only_row(_gated(confidence=0.5), "composite")
    assert narrow.ci_upper - narrow.ci_lower < base.ci_upper - base.ci_lower
    few = _only_row(_gated(n_bootstrap=100), "composite")
    assert round(few.p_value * 101, 9) == round(few.p_value * 101)  # (1 + k) / (1 + 100)
    assert round(base.p_value * 1001, 9) == round(base.p_value * 1001)


def test_an_untestable_drop_fails_when_the_test_is_on():
    now = _with_fst(HAIKU, rate_offset=-0.05, per_entry=False)
    verdict = evaluate_runs(
        _with_fst(GPT55), now, GateOptions(metric_gates={"fst_acceptance_rate": 0.0})
    )
    row = _only_row(verdict, "fst_acceptance_rate")
    assert (row.passed, row.p_value) == (False, None)
    assert not verdict.passed


def test_no_baseline_is_said_once_exactly():
    verdict = evaluate_gate(None, built(card_dict(replay_card(GPT55))), GateOptions())
    assert verdict.notes == ["no baseline: nothing to compare with, only absolute limits apply"]


def test_impossible_options_are_refused_naming_the_option():
    with pytest.raises(GateOptionError, match=r"significance must be in \[0, 1\), got 1\.0"):
        GateOptions(significance=1.0)
    with pytest.raises(GateOptionError, match=r"^max drop must be a finite number, got nan$"):
        GateOptions(max_drop=math.nan)
    with pytest.raises(GateOptionError, match=r"^fail under must be a finite number, got inf$"):
        GateOptions(fail_under=math.inf)


def test_a_drop_whose_significance_cannot_be_tested_fails_and_says_why():
    """A resampled metric whose resamples are all undefined has no p-value without being
    held fixed; the verdict says which of the two it is."""
    from dataclasses import replace

    from pytest_mteval.cards import gate
    from pytest_mteval.scoring.paired_comparison import Measure, Pairing

    pairing = Pairing(["e1", "e2"], ["exact_match_rate"], ["exact_match_rate"], "B")
    untested = Measure("exact_match_rate", 0.8, 0.5, -0.3, None, None, None)
    verdict = gate._judge(untested, 0.01, 0.05, pairing)
    assert not verdict.passed
    assert verdict.verdict == "FAIL: dropped 0.3 > 0.01 (significance not testable)"
    held = gate._judge(replace(untested, held_fixed=True), 0.01, 0.05, pairing)
    assert not held.passed
    assert held.verdict == "FAIL: dropped 0.3 > 0.01 (significance held fixed)"


def test_a_composite_limit_outside_its_0_1_scale_is_refused_in_one_line():
    for name, field in (("max drop", "max_drop"), ("fail under", "fail_under")):
        with pytest.raises(GateOptionError) as error:
            GateOptions(**{field: 1.5})
        assert str(error.value) == (
            f"{name} of the composite is on its 0-1 scale, got 1.5 "
            "(a drop of 5 chrF++ points is --mteval-gate chrf_plus_plus:5)"
        )
        GateOptions(**{field: 1.0})  # the top of the scale is allowed


def test_a_metric_gate_is_refused_above_its_own_scale_and_allowed_at_it():
    GateOptions(metric_gates={"composite": 1.0, "chrf_plus_plus": 100.0, "ter": 0.0})
    for metric, drop, scale in (("composite", 1.5, "1"), ("chrf_plus_plus", 100.5, "100")):
        with pytest.raises(GateOptionError) as error:
            GateOptions(metric_gates={metric: drop})
        assert str(error.value) == (
            f"max drop of {metric} is in its own units (0-{scale}), got {drop:g}"
        )


def test_without_a_baseline_the_verdict_keeps_its_options_and_says_why():
    from test_pairing_behaviour import EXACT, _rows, _run

    options = GateOptions(fail_under=0.5)
    current = _run(_rows(EXACT), {"exact_match_rate": 0.6})
    current.composite = 0.6
    verdict = evaluate_runs(None, current, options)
    assert verdict.options is options
    assert verdict.passed
    assert verdict.notes == ["no baseline: nothing to compare with, only absolute limits apply"]
    assert [row.metric for row in verdict.rows] == ["composite (this run)"]
