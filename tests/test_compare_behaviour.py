"""``mteval compare`` output, line by line: the layout test_compare.py leaves open, found by
mutation testing. Two real upstream runs (tests/data/upstream-runs), one of them edited so the
cases a reader must see are present: an errored entry, a withheld text, a long source, a
backslash. Entry scores are recomputed here with sacrebleu's sentence chrF++; the metric cells
come from the gate's public formatting (fmt, interval), which test_gate_table.py pins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from replayed_runs import GPT55, HAIKU, report
from sacrebleu.metrics import CHRF

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.compare import (
    Comparison,
    EntryChange,
    compare_runs,
    entry_changes,
    markdown,
    text_lines,
)
from pytest_mteval.cards.gate import GateVerdict, fmt, interval
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring.comparable_run import Comparable
from pytest_mteval.scoring.gate_options import GateOptions

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


# Cases the two runs above do not contain, found by mutation testing: a floor row outside the
# metric table, several failing metrics, a withheld text, sources that differ between runs, a
# small improvement, a cell exactly at the width limit.


def _row(source: str, predicted: str | None, chrf: float, **extra: object) -> EntryRecord:
    return cast(
        EntryRecord,
        {"source": source, "predicted": predicted, "chrf_score": chrf, "error": None, **extra},
    )


def _run(name: str, sha: str | None, rows: dict[str, EntryRecord]) -> Comparable:
    return Comparable(name, "run card", name, sha, "default", {}, None, rows)


def _bare(a: Comparable, b: Comparable, changes: list[EntryChange]) -> Comparison:
    """A comparison with no metric table and a passing gate: only the entries are shown."""
    verdict = GateVerdict(True, [], [], GateOptions())
    regressed = [c for c in changes if c.delta < 0]
    improved = [c for c in changes if c.delta > 0]
    return Comparison(a, b, verdict, [], regressed, improved)


def test_a_floor_and_several_gates_failing_are_all_named(tmp_path: Path) -> None:
    path = tmp_path / "haiku_edited_report.json"
    path.write_text(json.dumps(_edited_haiku()), encoding="utf-8")
    a, b = read_run(GPT55), read_run(path)
    assert b.composite is not None
    options = GateOptions(fail_under=0.99, metric_gates={"chrf_plus_plus": 0.0})
    c = compare_runs(a, b, options, top=1)
    floor = f"composite (this run): {b.composite:.4f} (floor 0.99) FAIL: {b.composite:.4f} < 0.99"
    failing = [r.metric for r in c.verdict.rows if not r.passed]
    assert failing[0] == "composite (this run)"
    assert len(failing) >= 3
    lines = text_lines(c)
    assert floor in lines
    assert lines.index(floor) == 3 + len(c.metrics)  # right under the table
    assert lines[-1] == "gate FAILED: " + ", ".join(failing)
    md = markdown(c).split("\n")
    row = f"| composite (this run) | | {b.composite:.4f} | | | | FAIL: {b.composite:.4f} < 0.99 |"
    assert md[6 + len(c.metrics)] == row
    assert f"**gate FAILED: {', '.join(failing)}**" in md


def test_a_withheld_text_and_an_error_are_shown_as_such() -> None:
    a = _run("a.json", "d" * 64, {"e1": _row("Hello.", None, 40.0, text_withheld=True)})
    b = _run("b.json", "d" * 64, {"e1": _row("Hello.", None, 0.0, error="boom")})
    (change,) = entry_changes(a, b)
    assert (change.before, change.after) == ("(text withheld)", "(error: boom)")
    empty = _run("c.json", "d" * 64, {"e1": _row("Hello.", None, 0.0)})
    assert entry_changes(a, empty)[0].after == ""
    # an errored entry recorded without a score counts as 0; a row without a source shows none
    errored = _run("d.json", None, {"e1": cast(EntryRecord, {"predicted": "x", "error": "oom"})})
    scored = _run("e.json", None, {"e1": cast(EntryRecord, {"predicted": "y", "chrf_score": 7.5})})
    (change,) = entry_changes(errored, scored)
    assert (change.source, change.chrf_before, change.delta) == ("", 0.0, 7.5)


def test_sources_that_differ_are_paired_only_on_the_same_dataset() -> None:
    a_rows = {"e1": _row("Good morning.", "Mangwanani.", 50.0), "e2": _row("Hi.", "Hesi.", 9.0)}
    b_rows = {"e1": _row("Good evening.", "Manheru.", 70.0), "e2": _row("Hi.", "Mhoro.", 20.0)}
    same = entry_changes(_run("a", "f" * 64, a_rows), _run("b", "f" * 64, b_rows))
    assert [(c.entry_id, c.source, c.before, c.after) for c in same] == [
        ("e1", "Good evening.", "Mangwanani.", "Manheru."),
        ("e2", "Hi.", "Hesi.", "Mhoro."),
    ]
    assert [c.delta for c in same] == [pytest.approx(20.0), pytest.approx(11.0)]
    # different datasets, or datasets without a fingerprint: a changed source is another entry
    for sha_a, sha_b in (("f" * 64, "e" * 64), (None, None), ("", "")):
        other = entry_changes(_run("a", sha_a, a_rows), _run("b", sha_b, b_rows))
        assert [c.entry_id for c in other] == ["e2"]
    extra = entry_changes(_run("a", None, a_rows), _run("b", None, {**b_rows, "e9": b_rows["e2"]}))
    assert [c.entry_id for c in extra] == ["e2"]  # an entry A lacks is not a change


def test_an_improvement_under_one_point_is_listed(tmp_path: Path) -> None:
    """A copy of one run with one prediction's last character doubled: the original improves
    on it by less than one sentence chrF++ point, and nothing else moves."""
    entries = report(GPT55)["entries"]
    moves = []
    for e in entries:
        if e["predicted"] and e["predicted"] != e["expected"]:
            worse = e["predicted"] + e["predicted"][-1]
            gain = _chrf(e["predicted"], e["expected"]) - _chrf(worse, e["expected"])
            if 0 < gain < 1:
                moves.append((gain, e["id"], worse))
    assert moves, "no entry of the run allows a gain under one point"
    gain, entry, worse = min(moves)
    edited = report(GPT55)
    for e in edited["entries"]:
        if e["id"] == entry:
            e["predicted"] = worse
    path = tmp_path / "gpt55_worse_report.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    c = compare_runs(read_run(path), read_run(GPT55), GateOptions(), top=5)
    assert c.regressed == []
    assert [x.entry_id for x in c.improved] == [entry]
    assert c.improved[0].delta == pytest.approx(gain, abs=1e-9)
    lines = text_lines(c)
    assert not any("regressed most" in line for line in lines)
    assert lines[-5] == "entries that improved most (sentence chrF++, A -> B):"
    assert lines[-1] == "gate PASSED: B is not a significant regression of A"


def test_a_cell_of_exactly_eighty_characters_is_not_cut() -> None:
    eighty, longer = "x" * 80, "y" * 81
    a = _run("a", "d" * 64, {"e1": _row(eighty, longer, 10.0)})
    b = _run("b", "d" * 64, {"e1": _row(eighty, eighty, 12.5)})
    c = _bare(a, b, entry_changes(a, b))
    lines = text_lines(c)
    assert lines[-5:] == [
        "entries that improved most (sentence chrF++, A -> B):",
        f"  e1  10.00 -> 12.50 (+2.50)  {eighty}",
        "      A: " + "y" * 79 + "…",
        f"      B: {eighty}",
        "gate PASSED: B is not a significant regression of A",
    ]
    md = markdown(c)
    assert f"| e1 | 10.00 → 12.50 | +2.50 | {eighty} | {'y' * 79}… | {eighty} |" in md


def test_a_metric_only_one_run_has_is_left_out(tmp_path: Path) -> None:
    a, b = read_run(GPT55), read_run(GPT55)
    assert {"bleu", "ter"} <= a.available()
    b.metrics["bleu"] = None  # a run that did not record BLEU
    a.metrics["ter"] = None
    c = compare_runs(a, b, GateOptions(), top=1)
    assert c.metrics == ["composite", *sorted(a.available() - {"bleu"})]
    assert "bleu" not in c.metrics
    assert "ter" not in c.metrics


def test_without_a_significance_test_every_p_cell_is_a_dash() -> None:
    c = compare_runs(read_run(GPT55), read_run(GPT55), GateOptions(significance=0.0))
    rows = markdown(c).split("\n")[6 : 6 + len(c.metrics)]
    assert [r.split(" | ")[0] for r in rows] == [f"| {m}" for m in c.metrics]
    assert [r.split(" | ")[5] for r in rows] == ["-"] * len(c.metrics)


def test_a_gate_that_could_not_be_evaluated_fails_without_naming_a_metric() -> None:
    """The shape evaluate_gate returns when evaluation raised: failed, no row, one note."""
    a = _run("a", "d" * 64, {"e1": _row("Hi.", "Hesi.", 10.0)})
    note = "the gate could not be evaluated: ValueError: | bad"
    verdict = GateVerdict(False, [], [note], GateOptions())
    c = Comparison(a, a, verdict, [], [], [])
    lines = text_lines(c)
    assert lines[-2:] == [f"note: {note}", "gate FAILED"]
    md = markdown(c).split("\n")
    assert md[-6:] == [
        "|---|---:|---:|---:|---|---:|---|",
        "",
        "**gate FAILED**",
        "",
        "- the gate could not be evaluated: ValueError: \\| bad",
        "",
    ]
