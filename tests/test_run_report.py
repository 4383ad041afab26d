"""``mteval report`` and ``--mteval-html`` without a browser: what the page holds."""

from __future__ import annotations

import json
import re

import pytest
from conftest import CORPORA, METHODS
from leaderboard_cards import RUNS, copy_cards, load

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main

# Imported here, in the outer process, so that pytester's in-process runs find matplotlib
# already loaded: pytester drops the modules a run imported, and a second run's fresh copy of
# matplotlib fails on the first copy's leftovers ('Figure' object has no attribute 'items').
pytest_mteval_html_report = pytest.importorskip("pytest_mteval.reports.html_report")


def test_scores_only_cards_keep_their_text_withheld(tmp_path, capsys):
    path = copy_cards(tmp_path, "haiku")["haiku"]
    card = load(path)
    texts = {r["source"] for r in card["results"]} | {r["predicted"] for r in card["results"]}
    for row in card["results"]:
        row["source"] = row["expected"] = ""
        row["predicted"] = row["raw_predicted"] = None
    runcard.seal(card)
    path.write_text(json.dumps(card), encoding="utf-8")
    page = tmp_path / "page.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "carries scores only" in html
    assert "<th>source</th>" not in html  # no text columns at all
    assert not [t for t in texts if t and f">{t}<" in html]
    assert html.count("<tr data-entry=") == len(card["results"])  # scores still shown


def test_a_forged_card_gets_no_report(tmp_path, capsys):
    path = copy_cards(tmp_path, "haiku")["haiku"]
    card = load(path)
    card["results"][0]["predicted"] = "forged"
    path.write_text(json.dumps(card), encoding="utf-8")
    assert main(["report", str(path), "--html", str(tmp_path / "p.html")]) == 1
    assert "run_card_hash does not match" in capsys.readouterr().err
    assert not (tmp_path / "p.html").exists()


def test_mteval_html_into_a_folder_names_the_page_after_the_run(pytester, tmp_path):
    predictions, model, corpus = RUNS["deepseek"]
    folder = tmp_path / "reports"
    folder.mkdir()
    card = tmp_path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={RUNS['gpt55'][0].parents[3] / 'methods' / 'replay'}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-model={model}",
        f"--mteval-run-card={card}",
        f"--mteval-html={folder}",
    )
    run_id = load(card)["run_id"]
    page = folder / f"{run_id}.html"
    result.stdout.fnmatch_lines([f"html report {page}"])
    html = page.read_text(encoding="utf-8")
    assert html.count("<tr data-entry=") == 47
    assert "regressed only" not in html  # no baseline, no regression columns


HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def test_hostile_text_in_a_card_is_shown_not_run(tmp_path, capsys):
    """A sealed card is only as honest as its author: every string is escaped on the page."""
    path = copy_cards(tmp_path, "haiku")["haiku"]
    card = load(path)
    card["model_slug"] = card["method"]["name"] = HOSTILE
    card["results"][0]["predicted"] = card["results"][0]["source"] = HOSTILE
    card["results"][0]["domain"] = HOSTILE
    card["scores"]["by_domain"] = {HOSTILE: card["scores"]["by_domain"]["conv"]}
    card["flags"] = [{"code": HOSTILE, "message": HOSTILE, "entry_ids": [HOSTILE]}]
    runcard.seal(card)
    path.write_text(json.dumps(card), encoding="utf-8")
    assert main(["report", str(path), "--html", str(tmp_path / "r.html")]) == 0
    assert main(["leaderboard", str(path), "--html", str(tmp_path / "l.html")]) == 0
    for page in ("r.html", "l.html"):
        html = (tmp_path / page).read_text(encoding="utf-8")
        assert "<script>alert" not in html
        assert "<img src=x" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert capsys.readouterr().out.count("`S`") == 1  # the markdown row survived the pipe-less text


def test_a_broken_bundle_is_one_line(tmp_path, capsys):
    bundle = tmp_path / "b.tar.gz"
    bundle.write_bytes(b"\x1f\x8b not really gzip")
    assert main(["bundle", "check", str(bundle)]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert out.startswith(f"PROBLEM {bundle}: not a readable tar.gz")


def entry_attributes(html):
    """(entry id, attributes) of every entry row of a report page."""
    rows = re.findall(r"<tr (data-entry=[^>]*)>", html)
    return [dict(re.findall(r'data-([\w-]+)="([^"]*)"', attrs)) for attrs in rows]


def test_fst_rejections_and_errors_are_marked_for_the_filters(pytester, tmp_path):
    """A real FST run (the dictionary method over the Plains Cree corpus and its analyzer)
    and a replay with missing predictions: the rows the filters keep are the card's."""
    card = tmp_path / "crk.json"
    pytester.runpytest(
        f"--mteval-corpus={CORPORA / 'eng-crk-morphodict-vocab.json'}",
        f"--mteval-method={METHODS / 'dictionary'}",
        f"--mteval-run-card={card}",
        f"--mteval-html={tmp_path / 'crk.html'}",
    )
    rows = load(card)["results"]
    rejected = {r["entry_id"] for r in rows if r["fst_valid"] is False}
    assert rejected  # the strict analyzer rejects English words passed through
    marked = entry_attributes((tmp_path / "crk.html").read_text(encoding="utf-8"))
    assert {a["entry"] for a in marked if a["fst-rejected"] == "1"} == rejected

    predictions, _model, corpus = RUNS["haiku"]
    entries = json.loads(predictions.read_text(encoding="utf-8"))["entries"]
    partial = tmp_path / "partial.jsonl"
    partial.write_text(
        "\n".join(json.dumps({"id": e["id"], "predicted": e["predicted"]}) for e in entries[5:]),
        encoding="utf-8",
    )
    card = tmp_path / "partial.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={partial}",
        f"--mteval-run-card={card}",
        f"--mteval-html={tmp_path / 'partial.html'}",
    )
    marked = entry_attributes((tmp_path / "partial.html").read_text(encoding="utf-8"))
    assert {a["entry"] for a in marked if a["error"] == "1"} == {str(e["id"]) for e in entries[:5]}


def test_flags_are_listed_and_marked_on_their_entries(pytester, tmp_path):
    """A degenerate run (one output for every entry) raises guards' flags; the report lists
    each and marks exactly the entries the card names."""
    predictions, _model, corpus = RUNS["haiku"]
    entries = json.loads(predictions.read_text(encoding="utf-8"))["entries"]
    same = tmp_path / "same.jsonl"
    same.write_text(
        "\n".join(json.dumps({"id": e["id"], "predicted": "Ndinokuda."}) for e in entries),
        encoding="utf-8",
    )
    card_path, page = tmp_path / "same.json", tmp_path / "same.html"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={same}",
        f"--mteval-run-card={card_path}",
        f"--mteval-html={page}",
    )
    card = load(card_path)
    assert card["flags"]
    html = page.read_text(encoding="utf-8")
    marked = entry_attributes(html)
    for flag in card["flags"]:
        assert f'<li data-flag="{flag["code"]}">' in html
        assert f'<option value="{flag["code"]}">' in html
        flagged = {a["entry"] for a in marked if flag["code"] in a["flags"].split()}
        assert flagged == {str(i) for i in flag["entry_ids"]}
