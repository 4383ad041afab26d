"""``mteval compare`` output, line by line: the layout test_compare.py leaves open, found by
mutation testing. Two real upstream runs (tests/data/upstream-runs), one of them edited so the
cases a reader must see are present: an errored entry, a withheld text, a long source, a
backslash. Entry scores are recomputed here with sacrebleu's sentence chrF++; the metric cells
come from the gate's public formatting (fmt, interval), which test_gate_table.py pins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replayed_runs import GPT55, HAIKU, report
from sacrebleu.metrics import CHRF

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.compare import Comparison, compare_runs, markdown, text_lines
from pytest_mteval.cards.gate import GateOptions, fmt, interval

CHRF_PP = CHRF(word_order=2)
LONG = "a \\ b " + "word " * 30  # a backslash, and 156 characters flattened to 155


def _chrf(predicted: str | None, reference: str) -> float:
    return CHRF_PP.sentence_score(predicted or "", [reference]).score


def _edited_haiku() -> dict:
    """HAIKU with its two entries GPT-5.5 did best on broken: one errored, one long."""
    base = {e["id"]: e for e in report(GPT55)["entries"]}
    edited = report(HAIKU)
    best = sorted(
        edited["entries"],
        key=lambda e: (-_chrf(base[e["id"]]["predicted"], e["expected"]), e["id"]),
    )
    best[0].update(predicted=None, error="timeout after 30 s")
    best[1].update(predicted=LONG)
    return edited


@pytest.fixture
def comparison(tmp_path: Path) -> Comparison:
    """Built afresh for each test, so mutmut links every test to the functions it calls."""
    path = tmp_path / "haiku_edited_report.json"
    path.write_text(json.dumps(_edited_haiku()), encoding="utf-8")
    return compare_runs(read_run(GPT55), read_run(path), GateOptions(), top=3)


def _cells(c: Comparison, metric: str) -> tuple[str, ...]:
    m = c.verdict.measures[metric]
    gate = [r.verdict for r in c.verdict.rows if r.metric == metric]
    return (
        metric,
        fmt(metric, m.baseline),
        fmt(metric, m.now),
        fmt(metric, m.delta, signed=True),
        interval(metric, m.lower, m.upper),
        "-" if m.p_value is None else f"{m.p_value:.3f}",
        gate[0] if gate else "",
    )


def test_every_shared_metric_is_compared_and_entries_are_scored_by_sacrebleu(comparison):
    a, b = comparison.a, comparison.b
    assert comparison.metrics[0] == "composite"
    assert set(comparison.metrics[1:]) == a.available() & b.available()
    base = {e["id"]: e for e in report(GPT55)["entries"]}
    moves = []
    for e in _edited_haiku()["entries"]:
        before = _chrf(base[e["id"]]["predicted"], e["expected"])
        after = 0.0 if e.get("error") else _chrf(e["predicted"], e["expected"])
        moves.append((after - before, e["id"], before, after))
    drops = sorted(m for m in moves if m[0] < 0)
    gains = sorted((-d, i, b, a) for d, i, b, a in moves if d > 0)
    assert [c.entry_id for c in comparison.regressed] == [m[1] for m in drops[:3]]
    assert [c.entry_id for c in comparison.improved] == [m[1] for m in gains[:3]]
    for change, (_, _, before, after) in zip(comparison.regressed, drops, strict=False):
        assert change.chrf_before == pytest.approx(before, abs=1e-9)
        assert change.chrf_after == pytest.approx(after, abs=1e-9)
        assert change.before == base[change.entry_id]["predicted"]
        assert change.source == base[change.entry_id]["source"]
    first = comparison.regressed[0]
    assert (first.chrf_after, first.after) == (0.0, "(error: timeout after 30 s)")
    assert comparison.regressed[1].after == LONG


def test_the_terminal_table_is_aligned_and_complete(comparison):
    lines = text_lines(comparison)
    assert lines[0] == f"A  {comparison.a.describe()}"
    assert lines[1] == f"B  {comparison.b.describe()}"
    header = ("metric", "A", "B", "delta", "95% CI of delta", "p", "gate")
    rows = [header, *(_cells(comparison, m) for m in comparison.metrics)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    table = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    assert lines[2 : 2 + len(table)] == table
    assert all(not line.startswith(" ") for line in table)
    assert lines[-1] == "gate FAILED: composite"


def test_the_terminal_lists_the_entries_that_moved(comparison):
    lines = text_lines(comparison)
    start = lines.index("entries that regressed most (sentence chrF++, A -> B):")
    for k, c in enumerate(comparison.regressed):
        head, a_line, b_line = lines[start + 1 + 3 * k : start + 4 + 3 * k]
        assert head.startswith(
            f"  {c.entry_id}  {c.chrf_before:.2f} -> {c.chrf_after:.2f} ({c.delta:+.2f})  "
        )
        assert a_line.startswith("      A: ")
        assert b_line.startswith("      B: ")
    assert lines[start + 3] == "      B: (error: timeout after 30 s)"
    assert lines[start + 6] == "      B: " + " ".join(LONG.split())[:79] + "…"
    improved = lines.index("entries that improved most (sentence chrF++, A -> B):")
    assert improved == start + 1 + 3 * len(comparison.regressed)
    assert len(comparison.improved) == 3
    assert lines[-1] == "gate FAILED: composite"


def test_the_markdown_comment_line_by_line(comparison):
    text = markdown(comparison)
    assert text.endswith(" |\n")
    assert not text.endswith("\n\n")
    lines = text.split("\n")[:-1]
    a, b = comparison.a, comparison.b
    assert lines[:6] == [
        "### mteval compare",
        "",
        f"**A** `{a.path}` ({a.origin}, {a.label}, {len(a.rows)} entries) → "
        f"**B** `{b.path}` ({b.origin}, {b.label}, {len(b.rows)} entries)",
        "",
        "| metric | A | B | Δ | 95% CI of Δ | p | gate |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    n = len(comparison.metrics)
    expected_rows = [
        "| " + " | ".join(c.replace("|", "\\|") for c in _cells(comparison, m)) + " |"
        for m in comparison.metrics
    ]
    assert lines[6 : 6 + n] == expected_rows
    at = 6 + n
    assert lines[at : at + 2] == ["", "**gate FAILED: composite**"]
    notes = comparison.verdict.notes
    at += 2
    if notes:
        assert lines[at] == ""
        assert lines[at + 1 : at + 1 + len(notes)] == [f"- {x}" for x in notes]
        at += 1 + len(notes)
    for title, changes in (
        ("regressed most", comparison.regressed),
        ("improved most", comparison.improved),
    ):
        assert lines[at : at + 5] == [
            "",
            f"#### Entries that {title} (sentence chrF++)",
            "",
            "| entry | A → B | Δ | source | A | B |",
            "|---|---:|---:|---|---|---|",
        ]
        at += 5
        for c in changes:
            row = lines[at]
            assert row.startswith(
                f"| {c.entry_id} | {c.chrf_before:.2f} → {c.chrf_after:.2f} | {c.delta:+.2f} | "
            )
            at += 1
    assert at == len(lines)


def test_markdown_cells_escape_backslashes_and_show_errors(comparison):
    text = markdown(comparison)
    assert "| (error: timeout after 30 s) |" in text
    cut = " ".join(LONG.split())[:79].replace("\\", "\\\\") + "…"
    assert f"| {cut} |" in text
