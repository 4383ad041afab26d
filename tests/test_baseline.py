"""Baselines: our run cards (verified) and reference-harness reports (re-scored), refused when
made on other data, and a missing file is a note."""

from __future__ import annotations

import json

import pytest
from replayed_runs import (
    DEEPSEEK,
    GEMINI_SME,
    GPT55,
    SME_CORPUS,
    SNA_CORPUS,
    card_dict,
    replay_card,
    report,
)

from pytest_mteval.cards import runcard
from pytest_mteval.cards.baseline import BaselineError, load_baseline, read_run
from pytest_mteval.corpus import load_corpus


@pytest.mark.parametrize("path", [GPT55, DEEPSEEK, GEMINI_SME], ids=lambda p: p.name[16:40])
def test_a_harness_report_is_rescored_to_its_own_figures(path):
    """Our re-scoring of the report's predictions agrees with the figures the reference
    harness computed itself (rounded there to 2 and 4 decimals)."""
    overall = report(path)["overall"]
    run = read_run(path)
    assert run.origin == "reference-harness report"
    assert len(run.rows) == overall["total_entries"]
    assert run.metrics["chrf_plus_plus"] == pytest.approx(overall["corpus_chrf"], abs=0.005)
    assert run.metrics["bleu"] == pytest.approx(overall["corpus_bleu"], abs=0.005)
    assert run.metrics["exact_match_rate"] == pytest.approx(overall["exact_match_rate"], abs=5e-5)
    assert run.notes == []


def test_a_harness_reports_composite_is_the_harness_own_profile_b_composite():
    """The reference harness recorded composite_score 0.5987 for gpt-5.5 (chrF++ and exact
    match available): the same weights, computed by another implementation."""
    theirs = report(GPT55)["overall"]["confidence_intervals"]["composite_score"]["score"]
    run = read_run(GPT55)
    assert run.composite == pytest.approx(theirs, abs=5e-5)
    assert run.reported_only["composite_score"] == theirs


def test_harness_rows_take_the_shape_of_our_records():
    row = read_run(GPT55).rows["tatoeba_6056942"]
    assert row["source"] == "I worship you."
    assert row["expected"] == "Ndinokuda."
    assert row["predicted"] == "Ndinokunamata."
    assert row["exact_match"] is False
    assert row["error"] is None


def test_a_harness_report_on_the_same_corpus_is_accepted():
    loaded = load_baseline(GPT55, load_corpus(SNA_CORPUS))
    assert loaded.comparable is not None
    assert "openai/gpt-5.5" in loaded.note


def test_a_baseline_on_another_corpus_is_refused_with_the_way_out():
    with pytest.raises(BaselineError) as refused:
        load_baseline(GEMINI_SME, load_corpus(SNA_CORPUS))
    message = str(refused.value)
    assert "not made on this dataset" in message
    assert "--mteval-allow-dataset-change" in message
    assert "\n" not in message


def test_a_changed_reference_is_refused_unless_allowed(tmp_path):
    edited = report(GPT55)
    edited["entries"][3]["expected"] += " (edited)"
    path = tmp_path / "edited_report.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    corpus = load_corpus(SNA_CORPUS)
    with pytest.raises(BaselineError, match=edited["entries"][3]["id"]):
        load_baseline(path, corpus)
    allowed = load_baseline(path, corpus, allow_dataset_change=True)
    assert allowed.comparable is not None
    assert "dataset changed" in allowed.note


def test_a_missing_baseline_is_a_note_not_an_error(tmp_path):
    loaded = load_baseline(tmp_path / "main.json", load_corpus(SNA_CORPUS))
    assert loaded.comparable is None
    assert "no baseline" in loaded.note
    assert "--mteval-update-baseline" in loaded.note


def test_our_run_card_is_verified_and_accepted():
    path = replay_card(GPT55)
    loaded = load_baseline(path, load_corpus(SNA_CORPUS))
    run = loaded.comparable
    assert run is not None
    assert run.origin == "run card"
    assert run.dataset_sha256 == load_corpus(SNA_CORPUS).sha256
    card = card_dict(path)
    assert run.metrics["chrf_plus_plus"] == card["scores"]["chrf_plus_plus"]
    assert set(run.rows) == {row["entry_id"] for row in card["results"]}


def test_an_edited_run_card_is_refused(tmp_path):
    card = card_dict(replay_card(GPT55))
    card["results"][0]["predicted"] = "something better"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(BaselineError, match="run_card_hash"):
        load_baseline(path, load_corpus(SNA_CORPUS))


def test_a_card_made_on_another_dataset_sha256_is_refused(tmp_path):
    card = card_dict(replay_card(GPT55))
    card["dataset"]["sha256"] = load_corpus(SME_CORPUS).sha256
    path = tmp_path / "other.json"
    path.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    with pytest.raises(BaselineError, match="dataset sha256"):
        load_baseline(path, load_corpus(SNA_CORPUS))
    assert load_baseline(path, load_corpus(SNA_CORPUS), allow_dataset_change=True).comparable


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"results": []}', "neither a run card"),
        ('{"overall": {}, "entries": [{"source": "x"}]}', "malformed reference-harness report"),
    ],
)
def test_unusable_files_end_in_one_line(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BaselineError, match=expected) as refused:
        read_run(path)
    assert "\n" not in str(refused.value)
