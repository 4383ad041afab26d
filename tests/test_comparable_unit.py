"""``scoring.comparable``: a run card or a reference-harness report in the one form two runs
are compared in. Cards and reports are built here; expected values are worked out by hand or
with sacrebleu's own corpus scoring."""

from __future__ import annotations

from pytest_mteval.scoring import comparable


def test_a_harness_report_is_told_apart_from_a_card():
    assert comparable.is_harness_report({"entries": [], "overall": {}})
    assert not comparable.is_harness_report({"entries": [], "overall": None})
    assert not comparable.is_harness_report({"entries": {}, "overall": {}})
    assert not comparable.is_harness_report({"results": [], "scores": {}})
