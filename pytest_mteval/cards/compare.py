"""Two runs side by side: every shared metric with its delta, interval and paired p-value, the
gate's verdict under the same options as the pytest gate, and the entries that moved most.

Text for a terminal, Markdown for a pull-request comment; the numbers come from the same
pairing and bootstrap as the session gate, so ``mteval compare main.json pr.json`` and the CI
gate cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pytest_mteval.cards.gate import GateVerdict, evaluate_runs, fmt, interval
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring.comparable_run import Comparable
from pytest_mteval.scoring.gate_options import GateOptions
from pytest_mteval.scoring.paired_comparison import COMPOSITE, Measure
from pytest_mteval.terminal_text import printable

DEFAULT_TOP: Final = 10
#: Longest text shown in a cell before it is cut (Markdown tables do not wrap well).
_CELL: Final = 80


@dataclass(frozen=True)
class EntryChange:
    """One entry's sentence chrF++ from A to B (an errored entry counts as 0)."""

    entry_id: str
    source: str
    before: str
    after: str
    chrf_before: float
    chrf_after: float

    @property
    def delta(self) -> float:
        return self.chrf_after - self.chrf_before


@dataclass(frozen=True)
class Comparison:
    a: Comparable
    b: Comparable
    verdict: GateVerdict
    metrics: list[str]
    regressed: list[EntryChange]
    improved: list[EntryChange]


def compare_runs(
    a: Comparable, b: Comparable, options: GateOptions, top: int = DEFAULT_TOP
) -> Comparison:
    """B judged against A as the session gate would judge it, plus every shared metric."""
    shared = sorted(a.available() & b.available())
    verdict = evaluate_runs(a, b, options, also_measure=[*shared, COMPOSITE])
    changes = entry_changes(a, b)
    regressed = sorted((c for c in changes if c.delta < 0), key=lambda c: (c.delta, c.entry_id))
    improved = sorted((c for c in changes if c.delta > 0), key=lambda c: (-c.delta, c.entry_id))
    metrics = [m for m in [COMPOSITE, *shared] if m in verdict.measures]
    return Comparison(a, b, verdict, metrics, regressed[:top], improved[:top])


def entry_changes(a: Comparable, b: Comparable) -> list[EntryChange]:
    out: list[EntryChange] = []
    same_data = bool(a.dataset_sha256) and a.dataset_sha256 == b.dataset_sha256
    for key, after in b.rows.items():
        before = a.rows.get(key)
        if before is None or (not same_data and before.get("source") != after.get("source")):
            continue
        out.append(
            EntryChange(
                key,
                str(after.get("source") or ""),
                _shown(before),
                _shown(after),
                float(before.get("chrf_score") or 0.0),
                float(after.get("chrf_score") or 0.0),
            )
        )
    return out


def _shown(row: EntryRecord) -> str:
    if row.get("error") is not None:
        return f"(error: {row['error']})"
    return str(row.get("predicted") or ("(text withheld)" if row.get("text_withheld") else ""))


def _gate_cell(comparison: Comparison, metric: str) -> str:
    for row in comparison.verdict.rows:
        if row.metric == metric:
            return row.verdict
    return ""


def _cells(comparison: Comparison, m: Measure) -> tuple[str, ...]:
    return (
        m.metric,
        fmt(m.metric, m.baseline),
        fmt(m.metric, m.now),
        fmt(m.metric, m.delta, signed=True),
        interval(m.metric, m.lower, m.upper),
        "-" if m.p_value is None else f"{m.p_value:.3f}",
        _gate_cell(comparison, m.metric),
    )


def text_lines(comparison: Comparison, with_verdict: bool = True) -> list[str]:
    """The comparison for a terminal; ``with_verdict=False`` leaves out the gate's last line
    (``--mteval-compare`` reports and never gates)."""
    v = comparison.verdict
    lines = [f"A  {comparison.a.describe()}", f"B  {comparison.b.describe()}"]
    level = f"{v.options.confidence:.0%} CI of delta"
    header = ("metric", "A", "B", "delta", level, "p", "gate")
    body = [_cells(comparison, v.measures[m]) for m in comparison.metrics]
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]
    lines.extend(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in (header, *body)
    )
    extra = [r for r in v.rows if r.metric not in comparison.metrics]
    lines.extend(f"{r.metric}: {fmt(COMPOSITE, r.now)} ({r.limit}) {r.verdict}" for r in extra)
    lines.extend(f"note: {note}" for note in v.notes)
    for title, changes in (
        ("regressed most", comparison.regressed),
        ("improved most", comparison.improved),
    ):
        if not changes:
            continue
        lines.append(f"entries that {title} (sentence chrF++, A -> B):")
        for c in changes:
            lines.append(
                f"  {c.entry_id}  {c.chrf_before:.2f} -> {c.chrf_after:.2f} ({c.delta:+.2f})"
                f"  {_cut(c.source)}"
            )
            lines.append(f"      A: {_cut(c.before)}")
            lines.append(f"      B: {_cut(c.after)}")
    if with_verdict:
        lines.append(_outcome(v))
    return [printable(line, lines=False) for line in lines]  # predictions hold any text


def markdown(comparison: Comparison) -> str:
    """The comparison as a pull-request comment."""
    v = comparison.verdict
    a, b = comparison.a, comparison.b
    out = [
        "### mteval compare",
        "",
        f"**A** `{a.path}` ({a.origin}, {_md(a.label)}, {len(a.rows)} entries) → "
        f"**B** `{b.path}` ({b.origin}, {_md(b.label)}, {len(b.rows)} entries)",
        "",
        f"| metric | A | B | Δ | {v.options.confidence:.0%} CI of Δ | p | gate |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for metric in comparison.metrics:
        cells = _cells(comparison, v.measures[metric])
        out.append("| " + " | ".join(_md(c) for c in cells) + " |")
    for r in v.rows:
        if r.metric not in comparison.metrics:
            out.append(f"| {r.metric} | | {fmt(COMPOSITE, r.now)} | | | | {_md(r.verdict)} |")
    out.extend(["", f"**{_outcome(v)}**"])
    if v.notes:
        out.append("")
        out.extend(f"- {_md(note)}" for note in v.notes)
    for title, changes in (
        ("regressed most", comparison.regressed),
        ("improved most", comparison.improved),
    ):
        if not changes:
            continue
        out.extend(
            [
                "",
                f"#### Entries that {title} (sentence chrF++)",
                "",
                "| entry | A → B | Δ | source | A | B |",
                "|---|---:|---:|---|---|---|",
            ]
        )
        for c in changes:
            out.append(
                f"| {_md(c.entry_id)} | {c.chrf_before:.2f} → {c.chrf_after:.2f} | "
                f"{c.delta:+.2f} | {_md(_cut(c.source))} | {_md(_cut(c.before))} | "
                f"{_md(_cut(c.after))} |"
            )
    return printable("\n".join(out) + "\n")


def _outcome(verdict: GateVerdict) -> str:
    if verdict.passed:
        return "gate PASSED: B is not a significant regression of A"
    failed = [r.metric for r in verdict.rows if not r.passed]
    return "gate FAILED" + (": " + ", ".join(failed) if failed else "")


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _CELL else flat[: _CELL - 1] + "…"


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")
