"""The typed view the reports and the leaderboard read (cards/card_view.py): our card's view
says what its JSON says, a foreign file's view is marked and checked strictly, and what the
leaderboard's signature and reproduction checks read of a foreign file is its identity only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leaderboard_cards import load, session_card

from pytest_mteval.cards import runcard
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.metrics import catalog

DATA = Path(__file__).parent / "data"
PEER = DATA / "reference-harness" / "cards" / "peer_card_arb.json"
REPORT = (
    DATA / "upstream-runs" / ("run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json")
)


def test_our_cards_view_says_what_its_json_says():
    path = session_card("gpt55")
    raw = load(path)
    view, foreign = read_verified(path)
    assert foreign is None
    assert view.foreign is None
    assert view.raw == raw
    for name in ("run_id", "timestamp", "model_slug", "model_id", "condition", "run_card_hash"):
        assert getattr(view, name) == raw[name]
    for name in ("id", "version", "language_pair", "sha256", "entry_count"):
        assert getattr(view.dataset, name) == raw["dataset"][name]
    for name in (*catalog.names(), "composite", "errors", "total", "quality_tier"):
        assert view.scores.value(name) == raw["scores"].get(name), name
    interval = raw["scores"]["confidence_intervals"]["composite"]
    shown = view.scores.interval("composite")
    assert shown is not None
    assert (shown.lower, shown.upper) == (interval["lower"], interval["upper"])
    assert [f.code for f in view.flags] == [f["code"] for f in raw["flags"]]
    assert view.method is not None
    assert view.method.name == raw["method"]["name"]
    assert view.results == raw["results"]
    assert view.totals.total_cost_usd == raw["totals"]["total_cost_usd"]


def test_a_foreign_card_and_report_are_marked_and_checked_on_their_identity_only():
    for path in (PEER, REPORT):
        raw = json.loads(path.read_text(encoding="utf-8"))
        view, line = read_verified(path)
        assert line is not None
        assert view.foreign is not None
        assert view.method is not None
        assert view.method.name.endswith(f"[{view.foreign.origin}]")
        assert [f.code for f in view.flags] == ["foreign"]
        assert view.raw == {
            "run_id": view.run_id,
            "run_card_hash": raw.get("run_card_hash") if path == PEER else None,
            "scores": {"composite": view.scores.composite},
        }
    report, _ = read_verified(REPORT)
    assert (report.dataset.sha256, report.dataset.version) == ("unrecorded", "unrecorded")
    assert report.run_card_hash is None
    assert len(report.results) == report.dataset.entry_count


@pytest.mark.parametrize("value", ["0", 0.0, True])
def test_a_foreign_cards_score_of_the_wrong_type_is_refused_never_converted(tmp_path, value):
    card = json.loads(PEER.read_text(encoding="utf-8"))
    card["scores"]["errors"] = value
    card["run_card_hash"] = runcard.card_hash(card)  # resealed: its own checks pass
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(runcard.RunCardError, match=r"peer\.json: foreign file: errors"):
        read_verified(path)


@pytest.mark.parametrize(
    ("field", "value"),
    [("entry_count", "x"), ("entry_count", [3]), ("entry_count", True), ("language_pair", 7)],
)
def test_a_forged_foreign_cards_dataset_field_is_refused_in_one_line(tmp_path, field, value):
    """A foreign card's hash is a plain sha256 anyone can recompute: a forged dataset field must
    be refused naming the file and the field, never shown or crash the reader."""
    card = json.loads(PEER.read_text(encoding="utf-8"))
    card["dataset"][field] = value
    card["run_card_hash"] = runcard.card_hash(card)  # resealed: its own checks pass
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(
        runcard.RunCardError, match=rf"peer\.json: foreign card: .*dataset\.{field}"
    ):
        read_verified(path)
