"""Forged card fields (issue 21, part 3): a card whose hash a forger recomputed after putting
text where a number belongs. ``mteval verify`` types scores as numbers (strictly: "0.999" is
not 0.999) and ``mteval show`` says what is wrong in one line, never with a traceback."""

from __future__ import annotations

import json

import pytest
from leaderboard_cards import load, session_card

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main as mteval


def forged(tmp_path, where, value):
    card = load(session_card("haiku"))
    target = card
    *path, last = where
    for key in path:
        target = target[key]
    target[last] = value
    out = tmp_path / "forged.json"
    out.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")  # the forger re-hashes
    return out


FORGERIES = [
    (("scores", "composite"), "0.999"),
    (("scores", "chrf_plus_plus"), "high"),
    (("scores", "exact_match_rate"), True),
    (("scores", "total"), "47"),
    (("totals", "total_cost_usd"), "0"),
    (("results", 0, "chrf_score"), "100"),
    (("elapsed_seconds",), "1"),
    (("scores", "confidence_intervals", "composite", "lower"), "0.9"),
]


@pytest.mark.parametrize(
    ("where", "value"), FORGERIES, ids=[".".join(map(str, w)) for w, _ in FORGERIES]
)
def test_text_where_a_number_belongs_fails_verify_and_show(tmp_path, capsys, where, value):
    card = forged(tmp_path, where, value)
    capsys.readouterr()
    assert mteval(["verify", str(card)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert out[0].startswith(f"INVALID {card}: schema: field"), out
    assert repr(".".join(map(str, where))) in out[0]
    assert mteval(["show", str(card)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert out[0].startswith(f"mteval show: {card}"), out


@pytest.mark.parametrize(
    "breakdown",
    [{"1": {"composite": "x", "n": 3}}, {"1": "not a group"}, ["a list"]],
    ids=["text-composite", "text-group", "list"],
)
def test_show_of_a_card_with_an_odd_breakdown_is_one_line(tmp_path, capsys, breakdown):
    card = forged(tmp_path, ("scores", "by_difficulty"), breakdown)
    capsys.readouterr()
    code = mteval(["show", str(card)])
    out = capsys.readouterr().out
    if code == 2:
        assert out.count("\n") == 1, out
        assert out.startswith(f"mteval show: {card}"), out
    else:
        assert code == 0
        assert "Traceback" not in out


def test_an_honest_card_still_verifies_and_shows(tmp_path, capsys):
    card = forged(tmp_path, ("scores", "composite"), 0.5)
    assert mteval(["verify", str(card)]) == 0
    assert mteval(["show", str(card)]) == 0
