"""A review made with `mteval review ingest` reaches the leaderboard (spec §7.3, §9.4): the
validated card is community-validated there, its parent is left out, and a tampered
validated card is not."""

from __future__ import annotations

import json
import shutil

from test_leaderboard import tables
from test_review import candidate, ingest, mteval, rate  # noqa: F401  (candidate: a fixture)
from trust_keys import public

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main

pytest_plugins = ["pytester"]


def test_an_ingested_review_makes_the_card_community_validated(candidate, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "sheets"
    assert mteval("review", "sample", candidate, "-n", 30, "--out", out).returncode == 0
    [sheet] = out.glob("*.csv")
    good = ["excellent"] * 20 + ["acceptable"] * 10
    a = rate(tmp_path / "a.csv", sheet, "Alice Example", good)
    b = rate(tmp_path / "b.csv", sheet, "Bob Example", good, "2026-12-02")
    board = tmp_path / "board"
    board.mkdir()
    validated = board / "validated.json"
    done = ingest(sheet, candidate, a, b, "--out", validated)
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.copy(candidate, board / "parent.json")
    governance = f"--governance-key={public('governance')}"
    assert main(["leaderboard", str(board), governance]) == 0
    printed = capsys.readouterr().out
    [rows] = tables(printed).values()
    assert [row["Verification"] for row in rows] == ["community-validated"]
    assert "human validation ignored" not in printed
    assert "parent.json: left out, a card on the board extends it with its review" in printed
    # a validated card whose record was changed after ingest no longer verifies its chain
    card = runcard.load(validated)
    card["human_validation"]["meets_threshold"] = True
    card["human_validation"]["ratings"]["reject"] = 25
    tampered = tmp_path / "tampered"
    tampered.mkdir()
    (tampered / "t.json").write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    assert main(["leaderboard", str(tampered), governance]) == 0
    printed = capsys.readouterr().out
    [rows] = tables(printed).values()
    assert [row["Verification"] for row in rows] == ["self-benchmarked"]
    assert "human validation ignored" in printed
