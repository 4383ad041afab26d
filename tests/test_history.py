"""Run history: the index, mteval runs / show, --mteval-compare, retention, partial runs,
--mteval-entry, and gate limits checked against each metric's scale."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import METHODS, envelope, flores_entries
from test_ranking_rule import runs_tables

from pytest_mteval.cli.main import main

pytest_plugins = ["pytester"]


def identity(pytester, corpus, *args):
    return pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={METHODS / 'identity'}", *args
    )


def index(pytester):
    path = pytester.path / ".mteval" / "runs" / "index.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cli(capsys, *argv):
    capsys.readouterr()  # what in-process pytest sessions printed before
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_runs_are_indexed_and_partial_ones_marked(pytester, small_corpus, capsys, monkeypatch):
    assert identity(pytester, small_corpus).ret == 0
    assert identity(pytester, small_corpus, "-k", "not batch-0000 or entry-1").ret == 0
    assert identity(pytester, small_corpus, "--mteval-domain=news").ret == 0
    rows = index(pytester)
    assert [r["complete"] for r in rows] == [True, False, False]
    cards = [json.loads(Path(r["path"]).read_text(encoding="utf-8")) for r in rows]
    assert cards[0]["coverage"] == {
        "complete": True, "entries_run": 6, "entries_in_corpus": 6, "reasons": [],
        "whole_corpus": True,
        "segments": {"development": {"complete": True, "entries_run": 6, "entries_in_segment": 6}},
    }  # fmt: skip
    assert cards[2]["coverage"]["reasons"] == ["filtered by --mteval-domain"]
    assert rows[0]["composite"] == cards[0]["scores"]["composite"]
    monkeypatch.chdir(pytester.path)
    code, out = cli(capsys, "runs")
    assert code == 0
    # identity copies its sources: the one ranking rule lists every run apart, with its reason
    assert out.splitlines()[0].startswith("No run is ranked")
    listed = runs_tables(out)["Not ranked"]
    assert [row["run"] for row in listed] == [r["run_id"][:8] for r in rows]
    assert [row["scope"] for row in listed] == ["complete", "partial", "partial"]
    reasons = [row["why not ranked"] for row in listed]
    assert reasons[0].startswith("degenerate output (source_copied)")
    assert reasons[1:] == [f"partial run: {'; '.join(c['coverage']['reasons'])}" for c in cards[1:]]
    code, out = cli(capsys, "show", "latest")  # the newest COMPLETE run
    assert code == 0
    assert f"run card         {rows[0]['path']}" in out
    code, out = cli(capsys, "show", rows[1]["run_id"][:8])
    assert "scope            partial" in out
    code, out = cli(capsys, "show", "nope")
    assert code == 2


def test_a_partial_run_is_never_a_baseline(pytester, small_corpus):
    card = pytester.path / "partial.json"
    identity(pytester, small_corpus, "--mteval-domain=news", f"--mteval-run-card={card}")
    result = identity(pytester, small_corpus, f"--mteval-baseline={card}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "is a partial run" in result.stderr.str()


def test_keep_runs_prunes_the_oldest_cards(pytester, small_corpus):
    for _ in range(3):
        identity(pytester, small_corpus, "--mteval-keep-runs=2")
    runs = pytester.path / ".mteval" / "runs"
    assert len(list(runs.glob("*.json"))) == 2
    rows = index(pytester)
    assert len(rows) == 2
    assert {r["path"] for r in rows} == {str(p) for p in runs.glob("*.json")}


def test_compare_reports_without_gating(pytester, tmp_path):
    corpus = tmp_path / "c.json"
    entries = flores_entries(8)
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    perfect = tmp_path / "perfect.jsonl"
    perfect.write_text(
        "".join(json.dumps({"id": e["id"], "predicted": e["reference"]}) + "\n" for e in entries)
    )
    first = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={perfect}",
    )
    assert first.ret == 0
    worse = identity(pytester, corpus, "--mteval-compare=latest")
    assert worse.ret == 0  # a comparison, not a gate
    out = worse.stdout.str()
    assert "mteval compare" in out
    assert "(not gated)" in out
    assert "mteval::gate" not in out
    assert not [line for line in worse.outlines if line.startswith(("gate PASSED", "gate FAILED"))]
    (delta,) = re.findall(r"^composite\s+[\d.]+\s+[\d.]+\s+([+-][\d.]+)", out, re.M)
    assert float(delta) < 0  # the comparison shows the drop


def test_one_exact_entry(pytester, tmp_path):
    entries = flores_entries(4)
    for entry, new_id in zip(entries, ["4", "40", "41", "5"], strict=True):
        entry["id"] = new_id
    corpus = tmp_path / "ids.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    by_k = identity(pytester, corpus, "-k", "entry-4")
    by_k.assert_outcomes(passed=3, deselected=1)  # -k matches entry-4, entry-40, entry-41
    exact = identity(pytester, corpus, "--mteval-entry=4", "-v")
    exact.assert_outcomes(passed=1)
    exact.stdout.fnmatch_lines(["*::entry-4 PASSED*"])
    missing = identity(pytester, corpus, "--mteval-entry=400")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    assert "no entry with id '400'" in missing.stderr.str()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--mteval-max-drop=5", "0-1 scale"),
        ("--mteval-fail-under=30", "0-1 scale"),
        ("--mteval-gate=exact_match_rate:5", "0-1"),
        ("--mteval-gate=chrf_plus_plus:150", "0-100"),
    ],
)
def test_limits_are_checked_against_each_metrics_scale(pytester, small_corpus, option, message):
    result = identity(pytester, small_corpus, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_chrf_points_are_a_valid_gate(pytester, small_corpus):
    assert identity(pytester, small_corpus, "--mteval-gate=chrf_plus_plus:5").ret == 0


def test_mteval_methods_lists_the_shipped_ones(capsys):
    code, out = cli(capsys, "methods")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert rows["identity"][1:3] == ["custom-plugin", "S"]
    assert rows["raw-llm"][1:3] == ["raw-llm", "A1"]
    assert rows["fst-gated"][1:3] == ["pipeline", "A1"]
    assert set(rows) >= {"identity", "replay", "dictionary", "raw-llm", "coached-llm"}


def test_mteval_corpora_lists_shipped_paths(capsys):
    code, out = cli(capsys, "corpora")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("eng-sna-tatoeba-dev "))
    assert row.split()[1:3] == ["en>sn", "47"]


def test_compare_with_a_run_on_other_data_says_so(pytester, small_corpus, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps(envelope(flores_entries(9)[6:]), ensure_ascii=False))
    assert identity(pytester, small_corpus).ret == 0
    result = identity(pytester, other, "--mteval-compare=latest")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*mteval compare*", "not compared with *: *"])
