"""Per-entry regressions and their inspection cards, on real eng-sna outputs."""

from __future__ import annotations

import re

import pytest
from replayed_runs import GPT55, HAIKU, card_dict, replay_card, report
from sacrebleu.metrics import CHRF

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.regressions import char_diff, entry_verdict
from pytest_mteval.scoring.gate_options import EntryGateOptions

CHRF_PP = CHRF(word_order=2)


def _sentence_chrf(hyp: str, ref: str) -> float:
    return float(CHRF_PP.sentence_score(hyp, [ref]).score)


def test_the_regressed_entries_are_those_sacrebleu_says_dropped_over_10_points():
    baseline = read_run(GPT55)
    records = card_dict(replay_card(HAIKU))["results"]
    failed = {
        r["entry_id"] for r in records if entry_verdict(baseline.rows[r["entry_id"]], r).failed
    }
    gpt = {e["id"]: e for e in report(GPT55)["entries"]}
    expected = {
        e["id"]
        for e in report(HAIKU)["entries"]
        if _sentence_chrf(gpt[e["id"]]["predicted"], e["expected"])
        - _sentence_chrf(e["predicted"], e["expected"])
        > 10
    }
    assert failed == expected
    assert 0 < len(failed) < len(records)


def test_a_run_against_itself_has_no_regressed_entry():
    baseline = read_run(replay_card(HAIKU))
    for record in card_dict(replay_card(HAIKU))["results"]:
        assert not entry_verdict(baseline.rows[record["entry_id"]], record).failed


def test_the_inspection_card_shows_everything_needed_to_judge_the_entry():
    baseline = read_run(GPT55).rows["tatoeba_3366437"]
    (record,) = [
        r for r in card_dict(replay_card(HAIKU))["results"] if r["entry_id"] == "tatoeba_3366437"
    ]
    verdict = entry_verdict(baseline, record)
    assert verdict.failed
    card = verdict.card_text
    before = _sentence_chrf("Vanoda parafini.", "Vanoda parafini.")
    after = _sentence_chrf("Vanoda paraffin.", "Vanoda parafini.")
    assert f"chrF++ dropped {before - after:.2f} points" in verdict.reasons[0]
    assert "source:     They want paraffin." in card
    assert "reference:  Vanoda parafini." in card
    assert "baseline:   Vanoda parafini." in card
    assert "now:        Vanoda paraffin." in card
    assert re.search(rf"chrF\+\+\s+{before:.2f} -> {after:.2f} \({after - before:+.2f}\)", card)
    assert re.search(r"exact match\s+yes -> no", card)
    assert "Vanoda paraf{+f+}in[-i-]." in card


def test_a_drop_of_exactly_the_allowed_points_passes():
    base = {"chrf_score": 60.0, "error": None, "predicted": "a"}
    now = {"chrf_score": 50.0, "error": None, "predicted": "b"}
    assert not entry_verdict(base, now, EntryGateOptions(entry_max_drop=10)).failed
    assert entry_verdict(base, now, EntryGateOptions(entry_max_drop=9.99)).failed


def test_newly_erroring_fails_and_erroring_again_does_not():
    ok = {"entry_id": "e1", "chrf_score": 60.0, "error": None, "predicted": "Ndinokuda."}
    broken = {"entry_id": "e1", "chrf_score": None, "error": "timeout: 300s", "predicted": None}
    verdict = entry_verdict(ok, broken)
    assert verdict.failed
    assert verdict.reasons == ("newly errors: timeout: 300s",)
    assert "now:        (error: timeout: 300s)" in verdict.card_text
    assert not entry_verdict(broken, broken).failed
    assert not entry_verdict(broken, ok).failed


def test_newly_failing_the_fst_fails_and_names_the_rejected_words():
    base = {"chrf_score": 50.0, "error": None, "predicted": "Mun boahtán", "fst_valid": True}
    now = {
        "chrf_score": 49.0,
        "error": None,
        "predicted": "Mun boahtan house",
        "fst_valid": False,
        "fst_rejected_words": ["house"],
    }
    verdict = entry_verdict(base, now)
    assert verdict.reasons == ("newly fails the FST (rejected: house)",)
    assert "FST-rejected words: now house; baseline -" in verdict.card_text
    assert re.search(r"FST valid\s+yes -> no", verdict.card_text)
    unknown_before = {**base, "fst_valid": None}
    assert not entry_verdict(unknown_before, now).failed


def test_without_a_baseline_row_only_the_floor_applies():
    record = {"entry_id": "x", "chrf_score": 30.0, "error": None, "predicted": "p"}
    assert not entry_verdict(None, record).failed
    verdict = entry_verdict(None, record, EntryGateOptions(entry_min_chrf=40))
    assert verdict.reasons == ("chrF++ 30.00 is below the floor of 40",)
    assert "baseline:   (no baseline)" in verdict.card_text
    assert "diff" not in verdict.card_text
    assert not entry_verdict(None, record, EntryGateOptions(entry_min_chrf=30)).failed


def _undo(diff: str, keep: str) -> str:
    """Rebuild one side of an inline diff: keep removed ("-") or added ("+") text."""
    drop = "+" if keep == "-" else "-"
    opener, closer = ("{+", "+}") if drop == "+" else ("[-", "-]")
    text = re.sub(re.escape(opener) + r".*?" + re.escape(closer), "", diff, flags=re.S)
    keep_open, keep_close = ("[-", "-]") if keep == "-" else ("{+", "+}")
    return text.replace(keep_open, "").replace(keep_close, "")


@pytest.mark.parametrize("entry", report(HAIKU)["entries"][:47], ids=lambda e: e["id"])
def test_the_character_diff_rebuilds_both_predictions(entry):
    old = {e["id"]: e for e in report(GPT55)["entries"]}[entry["id"]]["predicted"]
    new = entry["predicted"]
    diff = char_diff(old, new)
    if old == new:
        assert diff == old + "  (identical)"
        return
    assert _undo(diff, keep="-") == old
    assert _undo(diff, keep="+") == new


def test_tb_styles_cut_the_card_by_its_parts_not_by_parsing_its_text():
    """A method's error may itself hold lines that look like the card's own ("  - ...",
    "metrics:    baseline -> now"): each --tb style still shows exactly its parts."""
    record = card_dict(replay_card(HAIKU))["results"][0]
    before = {**record, "error": None}
    trap = "boom\n  - a fake reason\nmetrics:    baseline -> now"
    card = entry_verdict(before, {**record, "predicted": None, "error": trap}).card
    assert card is not None
    assert card.reasons == (f"newly errors: {trap}",)
    escaped = trap.replace("\n", "\\n")  # --tb=line: one line, whatever the error holds
    entry = record["entry_id"]
    assert card.for_style("line") == f"entry {entry} regressed: newly errors: {escaped}"
    short = card.for_style("short")
    assert short.endswith("now:        (error: " + trap + ")")
    assert "chrF++" not in short
    whole = card.for_style("long")
    assert whole.startswith(short + "\n")
    assert "chrF++" in whole.removeprefix(short)
    assert card.for_style("no") == ""
