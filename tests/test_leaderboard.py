"""``mteval leaderboard``: real cards of replayed upstream runs, ranked and checked against the
cards' own numbers."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest
from leaderboard_cards import RUNS, copy_cards, load, session_card

from pytest_mteval.cards import runcard
from pytest_mteval.cards.signing import generate_key_pair
from pytest_mteval.cards.verification_tier import sidecar_path
from pytest_mteval.cli.main import main
from pytest_mteval.reports.leaderboard_page import COLUMNS
from pytest_mteval.scoring import composite as scoring

SNA_RUNS = ("gpt55", "haiku", "deepseek")


def tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """Each board's heading -> its rows as {column: cell}, parsed from the markdown."""
    out: dict[str, list[dict[str, str]]] = {}
    heading = None
    header: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            heading, header = line[3:], []
            out[heading] = []
        elif line.startswith("| ") and heading is not None:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if not header:
                header = cells
            else:
                out[heading].append(dict(zip(header, cells, strict=True)))
    return out


def interval(card):
    ci = card["scores"]["confidence_intervals"]["composite"]
    return ci["lower"], ci["upper"]


def expected_ranks(cards):
    """Rank spans straight from the cards: the cards whose whole interval lies above, below."""
    out = {}
    for name, card in cards.items():
        low, high = interval(card)
        above = sum(1 for other in cards.values() if interval(other)[0] > high)
        below = sum(1 for other in cards.values() if interval(other)[1] < low)
        first, last = 1 + above, len(cards) - below
        out[name] = str(first) if first == last else f"{first}–{last}"
    return out


def test_markdown_matches_the_cards(tmp_path, capsys):
    paths = copy_cards(tmp_path / "cards", *SNA_RUNS, "gemini-sme")
    assert main(["leaderboard", str(tmp_path / "cards")]) == 0
    out = capsys.readouterr().out
    assert "automated proxy measurements" in out
    boards = tables(out)
    assert len(boards) == 2  # two corpora are never ranked together
    sna = next(rows for title, rows in boards.items() if "eng-sna" in title)
    sme = next(rows for title, rows in boards.items() if "eng-sme" in title)
    assert [r["Model"] for r in sme] == ["google/gemini-3.5-flash"]
    assert list(sna[0]) == list(COLUMNS)
    cards = {name: load(paths[name]) for name in SNA_RUNS}
    by_model = {row["Model"]: row for row in sna}
    assert set(by_model) == {RUNS[name][1] for name in SNA_RUNS}
    ranks = expected_ranks(cards)
    assert len(set(ranks.values())) > 1  # the real runs are not all tied
    for name, card in cards.items():
        row = by_model[RUNS[name][1]]
        s, totals = card["scores"], card["totals"]
        low, high = interval(card)
        assert row["Composite [95% CI]"] == f"{s['composite']:.3f} [{low:.3f}, {high:.3f}]"
        assert row["chrF++"] == f"{s['chrf_plus_plus']:.2f}"
        assert float(row["Exact match"]) == pytest.approx(s["exact_matches"] / s["total"], abs=5e-4)
        assert float(row["Cost/entry (USD)"]) == pytest.approx(
            totals["total_cost_usd"] / s["total"], abs=5e-7
        )
        cost_adjusted = scoring.cost_adjusted(s["composite"], totals["cost_per_entry_usd"])
        assert row["Cost-adjusted"] == f"{cost_adjusted:.3f}"
        assert row["Semantic"] == row["FST acceptance"] == "–"  # not measured on these runs
        assert row["Rank"] == ranks[name]
        assert row["Method"] == "replay `S`"
        assert row["Verification"] == "self-benchmarked"
        assert row["Date"] == card["timestamp"][:10]
    order = [r["Model"] for r in sna]
    composites = [cards[n]["scores"]["composite"] for n in SNA_RUNS]
    ranked = sorted(zip(SNA_RUNS, composites, strict=True), key=lambda p: -p[1])
    assert order == [RUNS[n][1] for n, _ in ranked]


def test_a_forged_card_is_refused_with_the_reason(tmp_path, capsys):
    paths = copy_cards(tmp_path, "gpt55", "haiku")
    forged = load(paths["haiku"])
    forged["scores"]["composite"] = 0.99
    paths["haiku"].write_text(json.dumps(forged), encoding="utf-8")
    assert main(["leaderboard", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert f"REFUSED {paths['haiku']}: run_card_hash does not match" in captured.err
    assert "Traceback" not in captured.err
    rows = next(iter(tables(captured.out).values()))
    assert [r["Model"] for r in rows] == ["openai/gpt-5.5"]


def test_tiers_need_a_reproduction_or_a_human_validation(tmp_path, capsys):
    cards = copy_cards(tmp_path, "gpt55", "haiku", "deepseek")
    maintainer = tmp_path.parent / f"{tmp_path.name}-maintainer.key"
    public = generate_key_pair(maintainer)
    rerun = tmp_path / "gpt55-rerun.json"
    signed = session_card("gpt55", tag="-rerun", extra=(f"--mteval-sign-key={maintainer}",))
    shutil.copy(signed, rerun)
    shutil.copy(cards["gpt55"], tmp_path / "gpt55-copy.json")  # the same run twice
    haiku = load(cards["haiku"])
    sidecar_path(cards["haiku"]).write_text(
        json.dumps(
            {
                "run_card_hash": haiku["run_card_hash"],
                "organisation": "sna-language-board",
                "reviewed_at": str(dt.date(2026, 11, 30)),
                "reviewers": 3,
                "ratings": {"reject": 2, "gist": 5, "acceptable": 10, "excellent": 3},
                "accepted": True,
            }
        ),
        encoding="utf-8",
    )
    sidecar_path(cards["deepseek"]).write_text(
        json.dumps({**json.loads(sidecar_path(cards["haiku"]).read_text())}), encoding="utf-8"
    )  # a record made for another card
    assert main(["leaderboard", str(tmp_path), f"--maintainer-key={public}"]) == 0
    captured = capsys.readouterr()
    boards = tables(captured.out)
    rows = next(iter(boards.values()))
    tiers = {}
    for row in rows:
        tiers.setdefault(row["Model"], []).append(row["Verification"])
    assert load(rerun)["fingerprint"] == load(cards["gpt55"])["fingerprint"]
    assert load(rerun)["run_id"] != load(cards["gpt55"])["run_id"]
    # the original is reproduced by the maintainer's run, whose own twin is the submitter's,
    # unsigned: no maintainer reproduced it; the copy is the same run, listed once
    assert sorted(tiers["openai/gpt-5.5"]) == ["maintainer-verified", "self-benchmarked"]
    apart = boards["Not ranked"]
    assert [row["Why not ranked"].split(":")[0] for row in apart] == ["duplicate"]
    # a plain record beside a card is nobody's signature: it earns nothing (issue 41)
    assert tiers["anthropic/claude-haiku-4.5"] == ["self-benchmarked"]
    assert tiers["deepseek/deepseek-v4-pro"] == ["self-benchmarked"]
    assert "human validation ignored" in captured.out
    assert "plain human-validation record is not signed by a governance key" in captured.out


def test_a_copy_of_one_run_is_no_reproduction(tmp_path, capsys):
    cards = copy_cards(tmp_path, "gpt55")
    shutil.copy(cards["gpt55"], tmp_path / "again.json")
    assert main(["leaderboard", str(tmp_path)]) == 0
    boards = tables(capsys.readouterr().out)
    rows = next(iter(boards.values()))
    assert [r["Verification"] for r in rows] == ["self-benchmarked"]
    assert [r["Why not ranked"] for r in boards["Not ranked"]] == [
        f"duplicate: the same run as {tmp_path / 'again.json'}, listed once"
    ]


def test_another_model_under_the_same_fingerprint_does_not_reproduce(tmp_path, capsys):
    """Haiku's outputs replayed under GPT-5.5's slug: same fingerprint, composite 20% off."""
    cards = copy_cards(tmp_path, "gpt55")
    impostor = session_card("haiku", tag="-as-gpt", extra=("--mteval-model=openai/gpt-5.5",))
    assert load(impostor)["fingerprint"] == load(cards["gpt55"])["fingerprint"]
    shutil.copy(impostor, tmp_path / "impostor.json")
    assert main(["leaderboard", str(tmp_path)]) == 0
    rows = next(iter(tables(capsys.readouterr().out).values()))
    assert [r["Verification"] for r in rows] == ["self-benchmarked"] * 2


def test_domain_ranks_on_the_domain_slice(tmp_path, capsys):
    paths = copy_cards(tmp_path, *SNA_RUNS)
    assert main(["leaderboard", str(tmp_path), "--domain", "conv"]) == 0
    rows = next(iter(tables(capsys.readouterr().out).values()))
    for name in SNA_RUNS:
        card = load(paths[name])
        group = card["scores"]["by_domain"]["conv"]
        row = next(r for r in rows if r["Model"] == RUNS[name][1])
        composite, bounds = row["Composite [95% CI]"].split(" ", 1)
        assert composite == f"{group['composite']:.3f}"
        low, high = (float(x) for x in bounds.strip("[]").split(", "))
        assert low <= group["composite"] <= high
        assert row["chrF++"] == f"{group['chrf_plus_plus']:.2f}"
    assert main(["leaderboard", str(tmp_path), "--domain", "legal"]) == 1
    assert "no verified card to rank" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("dependency", "mark"),
    [
        ({"access": "external-api", "substitutable": False, "redistributable": False}, "A2"),
        ({"access": "bundled", "redistributable": False}, "X"),
    ],
)
def test_dependency_classes_are_marked(pytester, tmp_path, capsys, dependency, mark):
    method = pytester.path / "method"
    shutil.copytree(RUNS["gpt55"][0].parents[3] / "methods" / "replay", method)
    manifest = json.loads((method / "method.json").read_text())
    manifest["dependency_class"] = mark
    manifest["dependencies"] = [
        {
            "id": "engine",
            "kind": "service" if mark == "A2" else "data",
            "license": "proprietary",
            "source": "https://engine.example/translate" if mark == "A2" else "replay.py",
            "transferable": False,
            **dependency,
        }
    ]
    (method / "method.json").write_text(json.dumps(manifest))
    predictions, model, corpus = RUNS["haiku"]
    card = tmp_path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-model={model}",
        f"--mteval-run-card={card}",
    )
    runcard.verify(load(card), card)
    if mark == "X":  # never listed (method interface), and the leaderboard says so
        assert main(["leaderboard", str(card)]) == 1
        err = capsys.readouterr().err
        assert "1 card(s) of class X methods left out: class X methods are not listed" in err
        return
    assert main(["leaderboard", str(card)]) == 0
    row = next(iter(tables(capsys.readouterr().out).values()))[0]
    assert row["Method"] == "replay `A2 ⚠ external dependency`"
