"""The leaderboard ranks like with like (spec §6.4, §9.7; SCORING; method interface): one
folder of real mixed cards, official and development, complete and partial, two profiles, two
metric sets and a class X method, shows exactly the boards the rules give."""

from __future__ import annotations

import json
import shutil

import pytest
from leaderboard_cards import RUNS, load, session_card
from official_cards import ANALYZER, card_of, closed_method, gold_corpus
from test_leaderboard import tables

from pytest_mteval.cards.bundle import BundleError, make_bundle
from pytest_mteval.cli.main import main


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mixed")
    cards = {
        "gpt55": session_card("gpt55"),
        "haiku": session_card("haiku"),
        "deepseek": session_card("deepseek"),
        "gold-gpt55": card_of("gpt55", "gold", gold_corpus()),
        "gold-haiku": card_of("haiku", "gold", gold_corpus()),
        "partial": card_of("gpt55", "k", extra=("-k", "batch-0000")),
        "no-hallucination": card_of("haiku", "noh", extra=("--mteval-skip-metric=hallucination",)),
        "profile-a": card_of(
            "deepseek", "fst", extra=(f"--mteval-fst={ANALYZER}", "--mteval-sandbox=none")
        ),
        "closed": card_of("gpt55", "x", method=closed_method()),
    }
    for name, path in cards.items():
        shutil.copy(path, folder / f"{name}.json")
    return folder, {name: load(folder / f"{name}.json") for name in cards}


def test_the_boards_and_what_stands_apart(mixed, capsys):
    folder, cards = mixed
    assert main(["leaderboard", str(folder)]) == 0
    out = capsys.readouterr().out
    boards = tables(out)
    titles = list(boards)
    apart_title = "Not ranked"
    assert titles[-1] == apart_title
    ranked = titles[:-1]
    # the official board first, alone with the two gold-standard runs
    assert ranked[0].startswith("Official (gold standard): tatoeba-eng-sna-dev")
    assert all(t.startswith("Development: ") for t in ranked[1:])
    models = {t: sorted(row["Model"] for row in boards[t]) for t in ranked}
    gpt, haiku, deepseek = (RUNS[n][1] for n in ("gpt55", "haiku", "deepseek"))
    gold_sha = cards["gold-gpt55"]["dataset"]["sha256"][:12]
    assert gold_sha in ranked[0]
    assert models[ranked[0]] == sorted([gpt, haiku])
    by_title = {t: models[t] for t in ranked[1:]}
    assert sorted(by_title.values()) == sorted(
        [sorted([gpt, haiku, deepseek]), [haiku], [deepseek]]
    )
    # the two profiles and the two metric sets are named in the titles
    full = next(t for t, m in by_title.items() if len(m) == 3)
    profile_a = next(t for t, m in by_title.items() if m == [deepseek])
    short = next(t for t, m in by_title.items() if m == [haiku])
    assert "profile A" in profile_a
    assert "fst_acceptance_rate" in profile_a
    assert "profile B" in short
    assert "profile B" in full
    assert "hallucination_rate" in full
    assert "hallucination_rate" not in short
    sna_sha = cards["gpt55"]["dataset"]["sha256"][:12]
    assert all(sna_sha in t for t in by_title)
    # the partial card, with its reason, never ranked
    apart = boards[apart_title]
    assert [row["Entries"] for row in apart] == ["25"]
    assert "partial run: 25 of 47 entries ran" in apart[0]["Why not ranked"]
    assert "Rank" not in apart[0]
    # the class X card is nowhere, and the note says how many and why
    everywhere = [row for rows in boards.values() for row in rows]
    assert len(everywhere) == len(cards) - 1
    assert "1 card(s) of class X methods left out: class X methods are not listed" in out


def test_the_official_cards_say_which_segments_they_covered(mixed):
    _, cards = mixed
    for name in ("gold-gpt55", "gold-haiku"):
        segments = cards[name]["dataset"]["segments"]
        assert segments["covered"] == ["gold_standard"]
        assert segments["gold_standard_only"] is True
        assert cards[name]["runner"]["sandbox"] == "netns"
    assert cards["gpt55"]["dataset"]["segments"]["covered"] == ["development"]


def test_a_class_x_method_is_not_bundled(tmp_path):
    card = card_of("gpt55", "x", method=closed_method())
    with pytest.raises(BundleError, match="field 'dependency_class': class X methods"):
        make_bundle(closed_method(), card, tmp_path / "b.tar.gz")
    assert not (tmp_path / "b.tar.gz").exists()
    assert main(["bundle", str(closed_method()), str(card), "-o", str(tmp_path / "c.tgz")]) == 1


def test_only_partial_cards_still_list_them(mixed, tmp_path, capsys):
    folder, _ = mixed
    shutil.copy(folder / "partial.json", tmp_path / "partial.json")
    assert main(["leaderboard", str(tmp_path)]) == 0
    boards = tables(capsys.readouterr().out)
    assert list(boards) == ["Not ranked"]
    assert json.loads((tmp_path / "partial.json").read_text())["coverage"]["complete"] is False
    assert RUNS["gpt55"][1] == boards[next(iter(boards))][0]["Model"]
