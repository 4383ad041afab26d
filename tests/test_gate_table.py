# ruff: noqa: E501  (expected terminal lines are kept whole, as a user reads them)
"""The "mteval gate" section exactly as a user reads it in a CI log: every column, sign and
width, for a hand-built verdict (expected lines typed out, not produced by the code under test).
"""

from __future__ import annotations

from pytest_mteval.cards.gate import GateVerdict, MetricVerdict, gate_lines
from pytest_mteval.scoring.gate_options import GateOptions


def verdict(**changes) -> GateVerdict:
    rows = [
        MetricVerdict(
            "composite (this run)", None, 0.6512, None, None, None, None, "floor 0.5", True, "pass"
        ),
        MetricVerdict(
            "composite",
            0.7191,
            0.6512,
            -0.0679,
            -0.1,
            -0.03,
            0.002,
            "max drop 0",
            False,
            "FAIL: dropped 0.0679 > 0, p < 0.05",
        ),
        MetricVerdict(
            "chrf_plus_plus",
            70.2,
            63.15,
            -7.05,
            -10.5,
            -3.25,
            0.0,
            "max drop 1",
            False,
            "FAIL: dropped 7.05 > 1, p < 0.05",
        ),
        MetricVerdict("ter", 57.0, 56.0, -1.0, -2.0, 0.5, 0.5, "max drop 2", True, "pass"),
        MetricVerdict(
            "exact_match_rate", 0.3, 0.35, 0.05, 0.01, 0.1, 0.3, "max drop 0", True, "pass"
        ),
    ]
    fields = {
        "passed": False,
        "rows": rows,
        "notes": ["compared over the 40 entries both runs scored (baseline 47, now 40)"],
        "options": GateOptions(confidence=0.9),
        "baseline": "base.json (run card, gpt, 47 entries)",
        "common_entries": 40,
        "shared_metrics": ["chrf_plus_plus", "ter"],
        **changes,
    }
    return GateVerdict(**fields)


def test_the_gate_section_line_by_line():
    assert gate_lines(verdict()) == [
        "against   base.json (run card, gpt, 47 entries)",
        "compared  40 common entries; shared metrics: chrf_plus_plus, ter",
        "metric                baseline  now     delta    90% CI              p      limit       verdict",
        "composite (this run)  -         0.6512  -        -                   -      floor 0.5   pass",
        "composite             0.7191    0.6512  -0.0679  [-0.1000, -0.0300]  0.002  max drop 0  FAIL: dropped 0.0679 > 0, p < 0.05",
        "chrf_plus_plus        70.20     63.15   -7.05    [-10.50, -3.25]     0.000  max drop 1  FAIL: dropped 7.05 > 1, p < 0.05",
        "ter                   57.00     56.00   -1.00    [-2.00, +0.50]      0.500  max drop 2  pass",
        "exact_match_rate      0.3000    0.3500  +0.0500  [+0.0100, +0.1000]  0.300  max drop 0  pass",
        "note      compared over the 40 entries both runs scored (baseline 47, now 40)",
        "gate      FAILED: composite, chrf_plus_plus",
    ]


def test_without_a_baseline_only_the_floor_and_the_verdict_show():
    floor = MetricVerdict(
        "composite (this run)",
        None,
        0.25,
        None,
        None,
        None,
        None,
        "floor 0.3",
        False,
        "FAIL: 0.2500 < 0.3",
    )
    lines = gate_lines(
        verdict(rows=[floor], notes=[], baseline=None, common_entries=0, shared_metrics=[])
    )
    assert lines == [
        "against   (no baseline: absolute limits only)",
        "metric                baseline  now     delta  90% CI  p  limit      verdict",
        "composite (this run)  -         0.2500  -      -       -  floor 0.3  FAIL: 0.2500 < 0.3",
        "gate      FAILED: composite (this run)",
    ]


def test_a_baseline_sharing_no_metric_says_none():
    lines = gate_lines(verdict(rows=[], notes=[], common_entries=0, shared_metrics=[]))
    assert lines[1] == "compared  0 common entries; shared metrics: none"


def test_a_passing_gate_and_one_that_failed_without_a_row_say_so():
    assert gate_lines(verdict(rows=[], notes=[], passed=True))[-1] == "gate      PASSED"
    broken = gate_lines(verdict(rows=[], notes=["the gate could not be evaluated: X"]))
    assert broken[-2:] == ["note      the gate could not be evaluated: X", "gate      FAILED"]
