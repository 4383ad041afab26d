"""Flags for degenerate runs (``guards.run_flags``): cases test_guards.py leaves open, found by
mutation testing. Each asserts what a user sees: which flag is raised, and on which entries."""

from __future__ import annotations

from typing import Any

from pytest_mteval.scoring import guards


def _record(i: int, source: str, reference: str, predicted: Any, variants=(), error=None):
    return {
        "entry_id": f"e{i}",
        "source": source,
        "expected": reference,
        "variants": list(variants),
        "predicted": predicted,
        "error": error,
    }


def _codes(flags):
    return [flag["code"] for flag in flags]


def test_an_answer_without_text_counts_as_empty():
    # A record with no error but no text (None, or not a string at all) is an empty answer.
    records = [_record(i, f"s{i}", f"r{i}", f"r{i}") for i in range(10)]
    records[3]["predicted"] = None
    flags = guards.run_flags(records)
    assert _codes(flags) == ["empty_output"]
    assert flags[0]["entry_ids"] == ["e3"]
    records[3]["predicted"] = 42
    assert _codes(guards.run_flags(records)) == ["empty_output"]


def test_one_output_that_is_an_accepted_variant_everywhere_is_not_repeated():
    # "ok" is an acceptable variant of three entries with three different references: the
    # corpus itself accepts it for each of them, so answering it is not degenerate.
    records = [
        _record(i, f"source {i}", reference, "ok", variants=["OK", "fine"])
        for i, reference in enumerate(["alright", "all right", "very well"])
    ]
    assert guards.run_flags(records) == []
    # The same answer where no variant allows it is flagged, on every entry.
    bare = [{**r, "variants": []} for r in records]
    flags = guards.run_flags(bare)
    assert _codes(flags) == ["repeated_output"]
    assert flags[0]["entry_ids"] == ["e0", "e1", "e2"]


def test_a_source_kept_because_a_variant_is_the_source_is_not_copying():
    # Names and loanwords: the corpus lists the source itself as an acceptable variant.
    records = [
        _record(i, name, f"{name}-ink", name, variants=[name])
        for i, name in enumerate(["Ottawa", "Winnipeg", "Regina"])
    ]
    assert guards.run_flags(records) == []
    bare = [{**r, "variants": []} for r in records]
    assert _codes(guards.run_flags(bare)) == ["source_copied"]


def test_no_entry_with_variants_is_never_suspicious_even_with_no_minimum():
    # With the minimum lowered to 0 a run without variants has nothing to judge: no flag (and
    # no division by zero).
    records = [_record(i, f"s{i}", f"r{i}", f"r{i}") for i in range(5)]
    lenient = guards.Thresholds(variants_min_entries=0)
    assert guards.run_flags(records, lenient) == []


def test_an_all_errored_run_is_flagged_once_for_its_errors():
    records = [_record(i, f"s{i}", f"r{i}", None, error="timeout") for i in range(4)]
    lenient = guards.Thresholds(variants_min_entries=0)
    flags = guards.run_flags(records, lenient)
    assert _codes(flags) == ["many_errors"]
    assert flags[0]["message"] == "4 of 4 entries errored: the scores cover the rest"
    assert guards.run_flags([], lenient) == []
