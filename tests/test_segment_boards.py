"""Segments on the official track (issue 42 item 3; benchmark spec §2.3, §6.4): a run of the
gold_standard segment of a corpus holding all four segments is that corpus version's official
score; a run mixing segments reports each segment's scores on its card and is ranked per
segment, its development and diagnostic scores on development boards. Real sessions replaying
real LLM outputs on the eng→sna Tatoeba corpus, its entries relabelled into four segments."""

from __future__ import annotations

import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest
import sacrebleu
from leaderboard_cards import RUNS, load
from official_cards import card_of
from replayed_runs import SNA_CORPUS, report
from test_leaderboard import tables

from pytest_mteval.cards import runcard
from pytest_mteval.cards.coverage import is_partial
from pytest_mteval.cli.main import main

#: How the 47 real entries are split: (segment, how many), in corpus order.
SPLIT = (("development", 20), ("diagnostic", 10), ("gold_standard", 12), ("held_out", 5))
GPT, HAIKU = RUNS["gpt55"][1], RUNS["haiku"][1]


@cache
def four_segments() -> Path:
    """The eng→sna corpus with its entries in all four segments of spec §2.3."""
    document = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))
    labels = [name for name, count in SPLIT for _ in range(count)]
    assert len(labels) == len(document["entries"])
    for entry, label in zip(document["entries"], labels, strict=True):
        entry["segment"] = label
        if label == "diagnostic":
            entry.setdefault("notes", "diagnostic: a sentence of the real corpus")
    path = Path(tempfile.mkdtemp(prefix="mteval-four-")) / "sna-four-segments.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    corpus = four_segments()
    gold, dev = ("--mteval-segment=gold_standard",), ("--mteval-segment=development",)
    cards = {
        "gold-gpt55": card_of("gpt55", "seg-gold", corpus, extra=gold),
        "gold-haiku": card_of("haiku", "seg-gold", corpus, extra=gold),
        "whole-haiku": card_of("haiku", "seg-whole", corpus),
        "dev-gpt55": card_of("gpt55", "seg-dev", corpus, extra=dev),
    }
    out = tmp_path_factory.mktemp("segments")
    for name, path in cards.items():
        shutil.copy(path, out / f"{name}.json")
    return out, {name: load(out / f"{name}.json") for name in cards}


def test_a_gold_run_of_a_four_segment_corpus_is_complete_over_its_segment(folder):
    _, cards = folder
    card = cards["gold-gpt55"]
    coverage = card["coverage"]
    assert card["dataset"]["segments"]["covered"] == ["gold_standard"]
    assert coverage["complete"] is True
    assert coverage["reasons"] == []
    assert coverage["segments"] == {
        "gold_standard": {"complete": True, "entries_run": 12, "entries_in_segment": 12}
    }
    # a secret run's rows keep their labels, difficulty as text (spec §3.7)
    corpus = json.loads(four_segments().read_text(encoding="utf-8"))["entries"]
    tiers = {str(e["id"]): str(e["difficulty"]) for e in corpus}
    assert all(r["difficulty"] == tiers[r["entry_id"]] for r in card["results"])
    # not the whole corpus: never a baseline or "latest" for a whole-corpus run
    assert coverage["whole_corpus"] is False
    assert is_partial(runcard.RunCard.model_validate(card)) is True


def test_the_gold_runs_stand_on_the_official_board(folder, capsys):
    path, cards = folder
    assert main(["leaderboard", str(path)]) == 0
    boards = tables(capsys.readouterr().out)
    official = [t for t in boards if t.startswith("Official (gold standard): ")]
    assert len(official) == 1
    sha = cards["gold-gpt55"]["dataset"]["sha256"][:12]
    assert sha in official[0]
    rows = boards[official[0]]
    # both gold runs, and the gold score of the whole-corpus run: three rows
    assert sorted(r["Model"] for r in rows) == sorted([GPT, HAIKU, HAIKU])
    shown = sorted(r["Composite [95% CI]"].split()[0] for r in rows)
    gold = [cards[n]["scores"]["composite"] for n in ("gold-gpt55", "gold-haiku", "gold-haiku")]
    assert shown == sorted(f"{c:.3f}" for c in gold)
    assert not any(t.startswith("Not ranked") for t in boards)


def test_a_mixed_run_reports_each_segments_scores(folder):
    _, cards = folder
    whole = cards["whole-haiku"]
    assert whole["dataset"]["segments"]["covered"] == ["development", "diagnostic", "gold_standard"]
    by_segment = whole["scores"]["by_segment"]
    assert sorted(by_segment) == ["development", "diagnostic", "gold_standard"]
    assert [by_segment[s]["count"] for s in sorted(by_segment)] == [20, 10, 12]
    # the card's texts are withheld (a corpus with secret segments): chrF++ per segment from
    # the corpus's references and the replayed report's predictions, by sacrebleu itself
    corpus = json.loads(four_segments().read_text(encoding="utf-8"))["entries"]
    predicted = {str(e["id"]): e for e in report(RUNS["haiku"][0])["entries"]}
    for segment, figures in by_segment.items():
        pairs = [
            (predicted[str(e["id"])]["predicted"], e["reference"])
            for e in corpus
            if e["segment"] == segment and predicted[str(e["id"])].get("predicted") is not None
        ]
        expected = sacrebleu.corpus_chrf(
            [p for p, _ in pairs], [[r for _, r in pairs]], word_order=2
        ).score
        assert figures["chrf_plus_plus"] == pytest.approx(expected, abs=1e-9)
        ci = figures["composite_interval"]
        assert ci["lower"] <= figures["composite"] <= ci["upper"]
    # the gold segment of the whole run scores as a run of that segment alone does
    gold_alone = cards["gold-haiku"]["scores"]
    assert by_segment["gold_standard"]["composite"] == pytest.approx(gold_alone["composite"])
    assert by_segment["gold_standard"]["chrf_plus_plus"] == pytest.approx(
        gold_alone["chrf_plus_plus"]
    )
    assert by_segment["development"]["composite"] != pytest.approx(gold_alone["composite"])


def test_a_mixed_run_is_ranked_per_segment(folder, capsys):
    path, cards = folder
    assert main(["leaderboard", str(path)]) == 0
    boards = tables(capsys.readouterr().out)
    whole = cards["whole-haiku"]["scores"]["by_segment"]
    development = [t for t in boards if t.startswith("Development: ") and "segment" not in t]
    diagnostic = [t for t in boards if t.startswith("Development: ") and "segment diagnostic" in t]
    assert len(development) == 1
    assert len(diagnostic) == 1
    # the development board: the development-only run beside the whole run's development score
    dev_rows = {r["Model"]: r for r in boards[development[0]]}
    assert set(dev_rows) == {GPT, HAIKU}
    composite = "Composite [95% CI]"
    assert dev_rows[HAIKU][composite].startswith(f"{whole['development']['composite']:.3f} ")
    dev_alone = cards["dev-gpt55"]["scores"]["composite"]
    assert dev_rows[GPT][composite].startswith(f"{dev_alone:.3f} ")
    (diag_row,) = boards[diagnostic[0]]
    assert diag_row[composite].startswith(f"{whole['diagnostic']['composite']:.3f} ")
    ci = whole["diagnostic"]["composite_interval"]
    assert f"[{ci['lower']:.3f}, {ci['upper']:.3f}]" in diag_row[composite]


def test_a_mixed_run_short_of_one_segment_is_ranked_on_the_others(tmp_path, capsys):
    """``-k`` deselecting development entries: the development score is listed apart, with
    its reason; the gold-standard score, complete, stays official."""
    corpus = four_segments()
    path = card_of("gpt55", "seg-k", corpus, extra=("-k", "not batch-0000"))
    card = load(path)
    assert card["coverage"]["complete"] is False
    seg = card["coverage"]["segments"]
    assert seg["gold_standard"]["complete"] is True
    assert seg["diagnostic"]["complete"] is False
    assert "development" not in seg  # no development entry ran: there is no such score
    shutil.copy(path, tmp_path / "k.json")
    assert main(["leaderboard", str(tmp_path)]) == 0
    boards = tables(capsys.readouterr().out)
    assert any(t.startswith("Official (gold standard): ") for t in boards)
    apart = next(rows for t, rows in boards.items() if t.startswith("Not ranked"))
    (row,) = apart  # batch 0 held the 20 development and 5 of the diagnostic entries
    assert "partial run: 5 of 10 diagnostic entries ran" in row["Why not ranked"]
