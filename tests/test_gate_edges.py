"""Edges of the gate's verdict that mutation testing found unguarded (docs/testing.md): the
floor exactly met, a run with no composite, a failing gate that still names its baseline."""

from __future__ import annotations

import copy

from replayed_runs import GPT55, card_dict, replay_card

from pytest_mteval.baseline import read_run
from pytest_mteval.gate import GateOptions, evaluate_gate


def test_a_composite_exactly_at_the_floor_passes_and_is_shown():
    card = card_dict(replay_card(GPT55))
    composite = card["scores"]["composite"]
    verdict = evaluate_gate(None, card, GateOptions(fail_under=composite))
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
    card["scores"] = {"composite": None}  # nothing the composite is made of was measured
    verdict = evaluate_gate(None, card, GateOptions(fail_under=0.0))
    assert not verdict.passed
    (row,) = verdict.rows
    assert (row.now, row.passed, row.verdict) == (None, False, "FAIL: this run has no composite")


def test_a_gate_that_cannot_be_evaluated_still_names_its_baseline_or_none():
    broken = {"scores": {}, "results": [{"no": "entry id"}]}
    baseline = read_run(GPT55)
    against = evaluate_gate(baseline, broken, GateOptions())
    assert (against.passed, against.baseline) == (False, baseline.describe())
    alone = evaluate_gate(None, broken, GateOptions())
    assert (alone.passed, alone.baseline) == (False, None)
    assert "could not be evaluated" in alone.notes[0]


def test_an_unknown_metric_in_a_gate_lists_every_gateable_name():
    import pytest
    from test_composite_weights import documented_weights

    from pytest_mteval.gate import GateOptionError, parse_metric_gate

    known = {"composite", "chrf_plus_plus", "bleu", "ter"}
    known |= set(documented_weights("A")) | set(documented_weights("B"))
    with pytest.raises(GateOptionError) as caught:
        parse_metric_gate("chrf:1")
    assert str(caught.value) == (
        f"unknown metric 'chrf' in a gate; known: {', '.join(sorted(known))}"
    )


def test_the_recorded_options_are_plain_json():
    import json

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
    verdict = evaluate_gate(baseline, card, GateOptions(significance=0))
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
    from replayed_runs import GEMINI_SME, HAIKU

    from pytest_mteval.gate import evaluate_runs

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
    broken = {"scores": {}, "results": [{"no": "entry id"}]}
    options = GateOptions(max_drop=0.5, significance=0.01)
    verdict = evaluate_gate(None, broken, options)
    assert verdict.notes == ["the gate could not be evaluated: KeyError: 'entry_id'"]
    assert verdict.options == options
    assert verdict.to_json()["options"]["max_drop"] == 0.5
