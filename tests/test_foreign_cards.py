"""The reference harness's run cards (as its ``assemble_run_card`` wrote one, tests/data/
reference-harness/SOURCE.md) and its run reports (tests/data/upstream-runs) are verified by
their own rules, shown, reported, ranked, compared and gated against, marked as foreign."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA

HARNESS = DATA / "reference-harness"
PEER = HARNESS / "cards" / "peer_card_arb.json"
ARB = HARNESS / "corpora" / "eng-arb-dev-v1.json"
SAMPLE = HARNESS / "corpora" / "sample_corpus.json"
RUNS = DATA / "upstream-runs"
GPT55 = RUNS / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
HAIKU = RUNS / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b_report.json"


def mteval(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def their_hash(card: dict) -> str:
    """The reference harness's run_card_hash, computed here as its publish module documents."""
    unsealed = {**card, "run_card_hash": ""}
    return hashlib.sha256(
        json.dumps(unsealed, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()


def edited(tmp_path: Path, source: Path, rehash: bool, **changes: object) -> Path:
    card = json.loads(source.read_text(encoding="utf-8"))
    card.update(changes)
    if rehash:
        card["run_card_hash"] = their_hash(card)
    path = tmp_path / source.name
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    return path


def test_verify_checks_the_foreign_cards_own_hash_and_fingerprint(tmp_path: Path) -> None:
    card = json.loads(PEER.read_text(encoding="utf-8"))
    assert their_hash(card) == card["run_card_hash"]  # the rule we check is theirs
    done = mteval("verify", PEER)
    assert done.returncode == 0, done.stdout
    assert (
        "foreign card (reference harness) 3.0.0: its run_card_hash and fingerprint" in done.stdout
    )
    scores = {**card["scores"], "chrf_plus_plus": 50.0}
    tampered = mteval("verify", edited(tmp_path, PEER, rehash=False, scores=scores))
    assert tampered.returncode == 1
    assert "run_card_hash does not match the content" in tampered.stdout
    # a consistent hash over a field its fingerprint names differently
    resealed = mteval("verify", edited(tmp_path, PEER, rehash=True, batch_size=10))
    assert resealed.returncode == 1
    assert "fingerprint component 'batch_size' is 25, but the card's batch_size is 10" in (
        resealed.stdout
    )


def test_verify_reads_a_report_and_refuses_an_edited_one(tmp_path: Path) -> None:
    done = mteval("verify", GPT55)
    assert done.returncode == 0, done.stdout
    assert "foreign report (reference harness)" in done.stdout
    assert "47 predictions re-scored by our code agree with its own corpus chrF++ (70.20)" in (
        done.stdout
    )
    report = json.loads(GPT55.read_text(encoding="utf-8"))
    for entry in report["entries"][:10]:
        entry["predicted"] = "x"
    path = tmp_path / GPT55.name
    path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    bad = mteval("verify", path)
    assert bad.returncode == 1
    assert "its own corpus chrF++ 70.2 is not that of its predictions" in bad.stdout


def test_show_report_and_leaderboard_mark_foreign_files(tmp_path: Path) -> None:
    shown = mteval("show", PEER)
    assert shown.returncode == 0, shown.stdout
    assert "[foreign card (reference harness)]" in shown.stdout
    assert "FLAG             foreign: foreign card" in shown.stdout
    assert "chrF++           2.22" in shown.stdout
    report_shown = mteval("show", GPT55)
    assert report_shown.returncode == 0, report_shown.stdout
    assert "[foreign report (reference harness)]" in report_shown.stdout
    for source in (PEER, GPT55):
        page = mteval("report", source, "--html", tmp_path / "pages/")
        assert page.returncode == 0, page.stderr
        html = (tmp_path / "pages" / source.name.replace(".json", ".html")).read_text("utf-8")
        assert "foreign" in html
    board = mteval("leaderboard", PEER, GPT55, HAIKU)
    assert board.returncode == 0, board.stderr
    assert "google/gemini-3.1-pro-preview \\[foreign card (reference harness)\\]" in board.stdout
    gpt = next(line for line in board.stdout.splitlines() if "openai/gpt-5.5 \\[foreign" in line)
    haiku = next(
        line for line in board.stdout.splitlines() if "claude-haiku-4.5 \\[foreign" in line
    )
    assert gpt.startswith("| 1 |")  # chrF++ 70.20
    assert haiku.startswith("| 2 |")  # over 49.82


def passthrough_session(pytester: pytest.Pytester, corpus: Path, *args: str) -> pytest.RunResult:
    plugin = pytester.path / "passthrough"
    if not plugin.exists():
        shutil.copytree(HARNESS / "method_plugin_passthrough", plugin)
    return pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={plugin}", "--mteval-no-cache", *args
    )


def test_a_foreign_card_is_a_baseline_and_is_compared(pytester: pytest.Pytester) -> None:
    card_path = pytester.path / "ours.json"
    gated = passthrough_session(
        pytester, ARB, f"--mteval-baseline={PEER}", f"--mteval-run-card={card_path}"
    )
    gated.assert_outcomes(passed=201)  # 200 entries and the gate
    gated.stdout.fnmatch_lines(["*foreign card (reference harness)*run-level scores only*"])
    gated.stdout.fnmatch_lines(["gate*PASSED*"])
    ours = json.loads(card_path.read_text(encoding="utf-8"))
    assert ours["gate"]["baseline_run_card_hash"] == json.loads(PEER.read_text())["run_card_hash"]
    compared = mteval("compare", PEER, card_path)
    assert compared.returncode == 0, compared.stdout
    (chrf,) = [line.split() for line in compared.stdout.splitlines() if line.startswith("chrf")]
    assert chrf[1:4] == ["2.22", "2.22", "+0.00"]  # their passthrough, ours: the same scores
    other_data = passthrough_session(pytester, SAMPLE, f"--mteval-baseline={PEER}")
    assert other_data.ret == pytest.ExitCode.USAGE_ERROR
    assert "was not made on this dataset: dataset sha256 9ed058ec56e4" in other_data.stderr.str()
