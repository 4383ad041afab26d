"""benchmarks/code_switching_audit.py on the shipped Shona runs (tests/data/upstream-runs, see
its SOURCE.md): the detector's firings joined with the hand audit, precision and its Wilson
interval checked against scipy's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPORA, DATA, REPO

binomtest = pytest.importorskip("scipy.stats").binomtest

SCRIPT = REPO / "benchmarks" / "code_switching_audit.py"
AUDIT = REPO / "benchmarks" / "data" / "code_switching_audit.tsv"


def _run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *(str(a) for a in args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )


def _wilson(hits: int, total: int) -> str:
    interval = binomtest(hits, total).proportion_ci(confidence_level=0.95, method="wilson")
    return f"95% CI {interval.low:.2f}-{interval.high:.2f}"


def test_the_shona_firings_are_the_audited_english_words():
    done = _run(DATA / "upstream-runs", CORPORA / "eng-sna-tatoeba-dev.json")
    assert done.returncode == 0, done.stdout + done.stderr
    flagged = [line.split() for line in done.stdout.splitlines() if "tatoeba_" in line]
    assert sorted((row[1], row[-1]) for row in flagged) == [
        ("tatoeba_1399479", "skyscraper"),
        ("tatoeba_3366430", "butter"),
        ("tatoeba_4697783", "skyscraper"),
    ]
    assert all(row[2] == "source-language" for row in flagged)
    assert f"fired   3, true   3, precision 1.00 ({_wilson(3, 3)})" in done.stdout
    # the Sami run has no corpus among those given: said, not guessed
    assert "c184e6: no corpus holds its entries; skipped" in done.stdout


def test_a_false_alarm_counts_against_precision_and_an_unaudited_firing_fails(tmp_path: Path):
    rows = AUDIT.read_text(encoding="utf-8").splitlines()
    edited = [
        r.replace("\tsource-language\t", "\tfalse-alarm\t") if "butter" in r else r for r in rows
    ]
    audit = tmp_path / "audit.tsv"
    audit.write_text("\n".join(edited) + "\n", encoding="utf-8")
    done = _run(DATA / "upstream-runs", CORPORA / "eng-sna-tatoeba-dev.json", "--audit", audit)
    assert done.returncode == 0
    assert f"fired   3, true   2, precision 0.67 ({_wilson(2, 3)})" in done.stdout

    audit.write_text("\n".join(r for r in rows if "skyscraper" not in r) + "\n", "utf-8")
    done = _run(DATA / "upstream-runs", CORPORA / "eng-sna-tatoeba-dev.json", "--audit", audit)
    assert done.returncode == 1
    assert "2 flagged entries have no verdict" in done.stdout

    audit.write_text(rows[0] + "\nr\te\tw\tmaybe\tnote\n", "utf-8")
    done = _run(DATA / "upstream-runs", CORPORA / "eng-sna-tatoeba-dev.json", "--audit", audit)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"code_switching_audit: {audit}: line 2: verdict 'maybe' is not one of "
        "false-alarm, other-language, source-language"
    )


def test_a_broken_report_is_skipped_with_one_line_and_the_others_are_still_scored(
    tmp_path: Path,
):
    runs = tmp_path / "runs"
    runs.mkdir()
    for report in (DATA / "upstream-runs").glob("*_report.json"):
        (runs / report.name).write_bytes(report.read_bytes())
    (runs / "a_truncated_report.json").write_text('{"run_id": "x", "entries": [', "utf-8")
    (runs / "b_idless_report.json").write_text(
        '{"run_id": "y", "entries": [{"id": 1}, {"predicted": "z"}]}', "utf-8"
    )
    done = _run(runs, CORPORA / "eng-sna-tatoeba-dev.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"{runs / 'a_truncated_report.json'}: ") for line in lines)
    assert f"{runs / 'b_idless_report.json'}: entry 1: field 'id': required" in done.stdout
    assert f"fired   3, true   3, precision 1.00 ({_wilson(3, 3)})" in done.stdout


def test_an_audit_without_its_columns_is_refused_in_one_line(tmp_path: Path):
    audit = tmp_path / "audit.tsv"
    audit.write_text("run_id\tentry\tverdict\nr\te\tfalse-alarm\n", "utf-8")
    done = _run(DATA / "upstream-runs", CORPORA / "eng-sna-tatoeba-dev.json", "--audit", audit)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"code_switching_audit: {audit}: line 1: missing column(s) entry_id"
    )
