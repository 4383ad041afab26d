"""Flags for degenerate runs and the tier cap, on real Plains Cree vocabulary and real LLM runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sacrebleu.metrics import CHRF

from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring import guards

RUNS = Path(__file__).resolve().parent / "data" / "upstream-runs"

# English query -> Plains Cree headwords (first = reference, others = acceptable variants).
# From UAlbertaALTLab/morphodict, src/morphodict/search_quality/sample.csv at commit
# f9730fdd473f23220733172f32d664022bcb5f38 (Apache-2.0, © 2019-2021 University of Alberta);
# the same rows ship in corpora/eng-crk-morphodict-vocab.json.
CREE_VOCABULARY = [
    ("about", ["wayês", "ohci", "papâ"]),
    ("all", ["kahkiyaw", "kapê", "mâwaci"]),
    ("also", ["mîna", "êkwa", "kisik"]),
    ("and", ["êkwa", "mîna", "kisik"]),
    ("as", ["kisik", "wiya", "tâpiskôt"]),
    ("at", ["itê", "ihk", "ispî"]),
    ("back", ["asê", "kâwi", "otâhk"]),
    ("because", ["osâm", "wiya", "ayis"]),
    ("big", ["misi", "misikitiw", "kihci"]),
    ("child", ["awâsis", "awâsimis", "awâsisîwiw"]),
    ("day", ["kîsikâw", "awasi-wâpahki", "awasi-otâkosîhk"]),
    ("dog", ["atim", "nitêm"]),
    ("see him", ["wâpamêw"]),
    ("sees him", ["wâpamêw"]),
    ("sees her", ["wâpamêw"]),
    ("hello", ["tânisi"]),
]


def _record(i, source, reference, predicted, variants=(), error=None):
    return {
        "entry_id": f"e{i}",
        "index": i,
        "source": source,
        "expected": reference,
        "variants": list(variants),
        "predicted": None if error else predicted,
        "error": error,
    }


def _cree_run(predict):
    """One record per vocabulary row, answered by ``predict(source, reference, variants)``."""
    return [
        _record(i, source, words[0], predict(source, words[0], words[1:]), words[1:])
        for i, (source, words) in enumerate(CREE_VOCABULARY)
    ]


def _codes(flags):
    return [flag["code"] for flag in flags]


def test_one_valid_cree_word_for_every_input_is_flagged_and_capped():
    """SCORING.md's case: one valid target-language answer repeated for every input."""
    records = _cree_run(lambda source, ref, variants: "tânisi")
    flags = guards.run_flags(records)
    assert _codes(flags) == ["repeated_output"]
    # "hello" -> "tânisi" is right, so that entry is not blamed; every other one is.
    assert flags[0]["entry_ids"] == [r["entry_id"] for r in records if r["source"] != "hello"]
    assert "tânisi" in flags[0]["message"]

    # The metrics such a run gets: the FST accepts every word, nothing leaks, nothing is
    # "hallucinated", and chrF++ (computed here by sacrebleu itself) is near zero.
    hyps = [r["predicted"] for r in records]
    chrf_pp = CHRF(word_order=2).corpus_score(hyps, [[r["expected"] for r in records]]).score
    assert chrf_pp < 15
    metrics = {
        "fst_acceptance_rate": 1.0,
        "code_switching_rate": 0.0,
        "hallucination_rate": 0.0,
        "chrf_plus_plus": chrf_pp,
        "exact_match_rate": 1 / len(records),
    }
    composite = scoring.composite(metrics, "A")
    assert scoring.quality_tier(composite) == "functional"  # what the composite alone says
    assert guards.cap_tier(scoring.quality_tier(composite), flags) == "emerging"


def test_one_cree_sentence_for_many_sources_is_flagged():
    records = [
        _record(i, source, words[0], "niwâpamâw atim")
        for i, (source, words) in enumerate(CREE_VOCABULARY[:5])
    ]
    flags = guards.run_flags(records)
    assert _codes(flags) == ["repeated_output"]
    assert len(flags[0]["entry_ids"]) == 5


def test_a_few_outputs_cycled_are_flagged_too():
    cycle = ["tânisi", "êkwa", "atim"]
    records = [
        _record(i, source, words[0], cycle[i % 3])
        for i, (source, words) in enumerate(CREE_VOCABULARY)
    ]
    assert "repeated_output" in _codes(guards.run_flags(records))


def test_honest_answers_raise_no_flag():
    # Every entry answered with its first variant where it has one: right but not reference.
    records = _cree_run(lambda source, ref, variants: variants[0] if variants else ref)
    assert guards.run_flags(records) == []


def test_one_output_for_sources_the_corpus_translates_alike_is_consistency():
    # "see him", "sees him", "sees her" all have the reference wâpamêw; a method that gives
    # another form for all three is consistent, not degenerate.
    records = [
        _record(i, source, "wâpamêw", "niwâpamâw")
        for i, source in enumerate(["see him", "sees him", "sees her"])
    ]
    assert guards.run_flags(records) == []


def test_source_copied_through_is_flagged_but_names_are_not():
    copied = _cree_run(lambda source, ref, variants: source)
    flags = guards.run_flags(copied)
    assert "source_copied" in _codes(flags)
    names = [_record(i, name, name, name) for i, name in enumerate(["Tom", "Mary", "Paris"])]
    assert guards.run_flags(names) == []


def test_copying_below_a_fifth_is_not_flagged():
    records = _cree_run(lambda source, ref, variants: ref)
    for record in records[:3]:  # 3 of 16 < 20 %
        record["predicted"] = record["source"]
    assert guards.run_flags(records) == []
    records[3]["predicted"] = records[3]["source"]  # 4 of 16 = 25 %
    assert _codes(guards.run_flags(records)) == ["source_copied"]


def test_empty_outputs_at_a_tenth_are_flagged():
    records = [_record(i, f"s{i}", f"r{i}", f"r{i}") for i in range(10)]
    records[0]["predicted"] = "  \n"
    flags = guards.run_flags(records)
    assert _codes(flags) == ["empty_output"]
    assert flags[0]["entry_ids"] == ["e0"]
    records.append(_record(10, "s10", "r10", "r10"))  # 1 of 11 < 10 %
    assert guards.run_flags(records) == []


def test_errors_are_not_empty_outputs_but_many_errors_are_flagged():
    records = [_record(i, f"s{i}", f"r{i}", f"r{i}") for i in range(10)]
    records[0].update(predicted=None, error="timeout")
    assert guards.run_flags(records) == []
    records[1].update(predicted=None, error="timeout")
    flags = guards.run_flags(records)
    assert _codes(flags) == ["many_errors"]
    assert flags[0]["entry_ids"] == ["e0", "e1"]


def test_exact_reference_on_every_entry_with_variants_is_suspicious():
    records = _cree_run(lambda source, ref, variants: ref)
    with_variants = [r for r in records if r["variants"]]
    assert len(with_variants) >= 10
    flags = guards.run_flags(records)
    assert _codes(flags) == ["suspiciously_perfect_variants"]
    assert flags[0]["entry_ids"] == [r["entry_id"] for r in with_variants]
    assert guards.cap_tier("fluent", flags) == "emerging"


def test_picking_variants_sometimes_is_not_suspicious():
    records = _cree_run(lambda source, ref, variants: ref)
    records[0]["predicted"] = records[0]["variants"][0]  # 11 of 12 exact: below 95 %
    assert guards.run_flags(records) == []


def test_too_few_entries_with_variants_cannot_be_judged():
    records = _cree_run(lambda source, ref, variants: ref)[:9]
    assert guards.run_flags(records) == []


def test_thresholds_can_be_tightened():
    records = _cree_run(lambda source, ref, variants: ref)
    records[0]["predicted"] = records[0]["source"]
    strict = guards.Thresholds(copied_share=0.05, variants_min_entries=100)
    assert _codes(guards.run_flags(records, strict)) == ["source_copied"]


def _upstream_records(path):
    report = json.loads(path.read_text(encoding="utf-8"))
    return [
        _record(i, e["source"], e["expected"], e["predicted"], error=e["error"])
        for i, e in enumerate(report["entries"])
    ]


@pytest.mark.parametrize("path", sorted(RUNS.glob("*_report.json")), ids=lambda p: p.name[:40])
def test_real_llm_runs_raise_no_false_alarm(path):
    assert guards.run_flags(_upstream_records(path)) == []


def test_upstream_runs_are_present():
    assert sorted(RUNS.glob("*_report.json")), f"no upstream run reports in {RUNS}"


def test_an_unrelated_answer_for_each_entry_is_flagged_when_answers_repeat():
    # Every entry answered with one of three real references that belong to other entries.
    records = _upstream_records(sorted(RUNS.glob("*_report.json"))[0])
    others = [r["expected"] for r in records[:3]]
    for i, record in enumerate(records[3:]):
        record["predicted"] = others[i % 3]
    assert "repeated_output" in _codes(guards.run_flags(records[3:]))


@pytest.mark.parametrize(
    ("tier", "capped"),
    [
        ("fluent", "emerging"),
        ("deployable", "emerging"),
        ("deployable (candidate, needs community review)", "emerging"),
        ("functional", "emerging"),
        ("emerging", "emerging"),
        ("baseline", "baseline"),
        ("unscored", "unscored"),
    ],
)
def test_cap_tier(tier, capped):
    flag = guards.Flag(code="empty_output", message="", entry_ids=["e0"])
    assert guards.cap_tier(tier, [flag]) == capped


@pytest.mark.parametrize(
    "tier", ["fluent", scoring.CANDIDATE_LABEL, "functional", "baseline", "unscored"]
)
def test_unflagged_tier_is_unchanged(tier):
    assert guards.cap_tier(tier, []) == tier


def test_unknown_tier_is_an_error():
    with pytest.raises(ValueError, match="tier"):
        guards.cap_tier("excellent", [])
