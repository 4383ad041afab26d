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


def test_empty_answers_are_counted_in_the_message():
    records = [_record(i, f"s{i}", f"r{i}", f"r{i}") for i in range(12)]
    records.append(_record(12, "s12", "r12", None, error="timeout"))  # not answered
    records[2]["predicted"] = ""
    records[5]["predicted"] = " \t"
    flags = guards.run_flags(records)
    assert _codes(flags) == ["empty_output"]
    assert flags[0]["message"] == "2 of 12 answered entries are empty"
    assert flags[0]["entry_ids"] == ["e2", "e5"]


def test_repetition_needs_exactly_three_different_references_by_default():
    two = [_record(i, f"s{i}", ref, "atim") for i, ref in enumerate(["a", "b", "b"])]
    assert guards.run_flags(two) == []
    three = [_record(i, f"s{i}", ref, "atim") for i, ref in enumerate(["a", "b", "c"])]
    assert _codes(guards.run_flags(three)) == ["repeated_output"]


def _honest(i: int):
    return _record(i, f"source {i}", f"reference {i}", f"reference {i}")


def test_repetition_is_flagged_from_exactly_a_fifth_of_the_answered_entries():
    # 3 entries share one output over 3 references; the others are answered honestly.
    repeated = [_record(i, f"s{i}", f"ref{i}", "niwâpamâw") for i in range(3)]
    at_a_fifth = repeated + [_honest(i) for i in range(3, 15)]  # 3 of 15 = 0.2 exactly
    flags = guards.run_flags(at_a_fifth)
    assert _codes(flags) == ["repeated_output"]
    assert flags[0]["entry_ids"] == ["e0", "e1", "e2"]
    below = repeated + [_honest(i) for i in range(3, 16)]  # 3 of 16 < 0.2
    assert guards.run_flags(below) == []


def test_copying_is_flagged_from_exactly_a_fifth_of_the_answered_entries():
    copied = [_record(0, "the dog", "atim", "the dog")]
    at_a_fifth = copied + [_honest(i) for i in range(1, 5)]  # 1 of 5 = 0.2 exactly
    flags = guards.run_flags(at_a_fifth)
    assert _codes(flags) == ["source_copied"]
    assert flags[0]["message"] == "1 of 5 answered entries return their source unchanged"
    assert flags[0]["entry_ids"] == ["e0"]
    assert guards.run_flags(copied + [_honest(i) for i in range(1, 6)]) == []  # 1 of 6


def test_the_repetition_message_shows_three_examples_as_the_run_wrote_them():
    # Four outputs, each repeated over three entries with different references; the first
    # entry of each group is written differently (case, spacing), the message quotes it as is.
    outputs = ["Tânisi", "êkwa", "  atim ", "mîna"]
    records = []
    for g, output in enumerate(outputs):
        for k in range(3):
            i = 3 * g + k
            text = output if k == 0 else output.strip().lower()
            records.append(_record(i, f"s{i}", f"reference {i}", text))
    flags = guards.run_flags(records)
    assert _codes(flags) == ["repeated_output"]
    assert flags[0]["message"] == (
        "12 of 12 answered entries give an output that the run repeats across at least 3 "
        "entries with different references: 'Tânisi' x3, 'êkwa' x3, '  atim ' x3"
    )
    assert flags[0]["entry_ids"] == [f"e{i}" for i in range(12)]


def test_copying_names_the_copied_entries():
    records = [_honest(i) for i in range(8)]
    records[2]["predicted"] = records[2]["source"]
    records[6]["predicted"] = "  SOURCE 6 "  # case and spacing do not hide a copy
    flags = guards.run_flags(records)
    assert _codes(flags) == ["source_copied"]
    assert flags[0]["entry_ids"] == ["e2", "e6"]
    assert flags[0]["message"] == (
        "2 of 8 answered entries return their source unchanged or changed only in case or "
        "spacing (1 of them)"
    )


def _with_variants(i: int, predicted: str):
    return _record(i, f"s{i}", f"ref {i}", predicted, variants=[f"variant {i}"])


def test_exact_references_are_suspicious_from_exactly_ten_entries_with_variants():
    ten = [_with_variants(i, f"ref {i}") for i in range(10)]
    flags = guards.run_flags(ten)
    assert _codes(flags) == ["suspiciously_perfect_variants"]
    assert flags[0]["message"] == (
        "10 of 10 entries with acceptable variants reproduce the exact reference rather than "
        "a variant: were the references seen? (spec §9.3)"
    )
    assert guards.run_flags(ten[:9]) == []


def test_exact_references_are_suspicious_from_exactly_95_percent():
    run = [_with_variants(i, f"ref {i}") for i in range(20)]
    run[7]["predicted"] = "variant 7"  # 19 of 20 = 0.95 exactly
    flags = guards.run_flags(run)
    assert _codes(flags) == ["suspiciously_perfect_variants"]
    assert flags[0]["entry_ids"] == [f"e{i}" for i in range(20) if i != 7]
    run[8]["predicted"] = "variant 8"  # 18 of 20
    assert guards.run_flags(run) == []


def test_a_variant_that_only_repeats_the_reference_is_no_variant():
    # Corpora often list the reference among the variants (or with other spacing): such
    # entries give the method no choice, so exact answers there prove nothing.
    run = [
        _record(i, f"s{i}", f"ref {i}", f"ref {i}", variants=[f"ref {i}", f" ref  {i}"])
        for i in range(12)
    ]
    assert guards.run_flags(run) == []
