"""The leaderboard as markdown (for a pull request or a README) and as an HTML page with the
cost-versus-quality plot of each board."""

from __future__ import annotations

from typing import Final

from pytest_mteval.reports import plots
from pytest_mteval.reports.leaderboard import PROXY_NOTE, Board, Leaderboard, Row
from pytest_mteval.reports.page import esc, num_cell, number, page, text_cell

#: The §9.7 columns, in order.
COLUMNS: Final = (
    "Rank",
    "Method",
    "Composite [95% CI]",
    "chrF++",
    "FST acceptance",
    "Exact match",
    "Semantic",
    "Cost/entry (USD)",
    "Speed (s/entry)",
    "Cost-adjusted",
    "Class",
    "Model",
    "Quality tier",
    "Verification",
    "Date",
)
_MARKS: Final = {"A2": "⚠ external dependency", "X": "🔒 closed"}


def dependency_mark(row: Row) -> str:
    """The badge text: the dependency class, and what A2 or X means for the method."""
    if row.dependency_class is None:
        return ""
    mark = _MARKS.get(row.dependency_class)
    return f"{row.dependency_class}" + (f" {mark}" if mark else "")


def _composite(row: Row) -> str:
    text = number(row.composite, 3)
    if row.lower is not None and row.upper is not None:
        text += f" [{row.lower:.3f}, {row.upper:.3f}]"
    return text


def _cost(value: float | None) -> str:
    return number(value, 6)


def _cells(row: Row) -> list[str]:
    return [
        row.rank_text(),
        row.method,
        _composite(row),
        number(row.chrf_plus_plus, 2),
        number(row.fst_acceptance_rate, 3),
        number(row.exact_match_rate, 3),
        number(row.semantic_score, 3),
        _cost(row.cost_per_entry_usd),
        number(row.avg_latency_seconds, 3),
        number(row.cost_adjusted, 3),
        row.method_class or "–",
        row.model,
        row.quality_tier,
        row.verification,
        row.date,
    ]


def markdown(board_set: Leaderboard) -> str:
    lines = ["# Leaderboard", "", f"> **Note.** {PROXY_NOTE}", ""]
    for board in board_set.boards:
        lines += [f"## {board.title()}", "", _md_row(list(COLUMNS))]
        lines.append("|" + "|".join("---" for _ in COLUMNS) + "|")
        for row in board.rows:
            cells = _cells(row)
            mark = dependency_mark(row)
            cells[1] = f"{row.method} `{mark}`" if mark else row.method
            lines.append(_md_row(cells))
        lines += ["", _tie_note(board), ""]
    lines += [f"- {note}" for note in board_set.notes]
    lines += [f"- {line}" for line in board_set.refused]
    return "\n".join(lines).rstrip() + "\n"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _tie_note(board: Board) -> str:
    return (
        "Rank a–b: the composite's 95% interval overlaps those of the cards ranked a to b, "
        "so they are tied. Unscored cards share the last place."
    )


def html(board_set: Leaderboard) -> str:
    parts = [
        "<h1>Leaderboard</h1>",
        f'<p class="note"><strong>Note.</strong> {esc(PROXY_NOTE)}</p>',
    ]
    for line in board_set.refused:
        parts.append(f'<p class="refused">{esc(line)}</p>')
    for index, board in enumerate(board_set.boards):
        parts.append(f'<section class="board" id="board-{index}"><h2>{esc(board.title())}</h2>')
        points = [
            plots.ScatterPoint(
                f"{r.rank_text()}. {r.method} ({r.model})",
                r.cost_per_entry_usd,
                r.composite,
                r.lower,
                r.upper,
            )
            for r in board.rows
            if r.composite is not None
        ]
        parts.append(
            '<div class="charts scatter">'
            + plots.cost_quality_scatter(points, "composite against cost per entry")
            + "</div>"
        )
        parts.append(_html_table(board))
        parts.append(f'<p class="muted">{esc(_tie_note(board))}</p></section>')
    if board_set.notes:
        parts.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in board_set.notes) + "</ul>")
    return page("pytest-mteval leaderboard", "\n".join(parts))


def _html_table(board: Board) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in COLUMNS)
    body = []
    for row in board.rows:
        mark = dependency_mark(row)
        badge = (
            f'<span class="badge dep-{esc(row.dependency_class)}" title="dependency class">'
            f"{esc(mark)}</span>"
            if mark
            else ""
        )
        body.append(
            f'<tr class="card-row" data-run-id="{esc(row.run_id)}">'
            f'<td class="num" data-sort="{row.rank_low}">{esc(row.rank_text())}</td>'
            f'<td data-sort="{esc(row.method)}">{esc(row.method)}{badge}</td>'
            + num_cell(row.composite, 3).replace(
                f">{number(row.composite, 3)}<", f">{esc(_composite(row))}<"
            )
            + num_cell(row.chrf_plus_plus, 2)
            + num_cell(row.fst_acceptance_rate, 3)
            + num_cell(row.exact_match_rate, 3)
            + num_cell(row.semantic_score, 3)
            + num_cell(row.cost_per_entry_usd, 6)
            + num_cell(row.avg_latency_seconds, 3)
            + num_cell(row.cost_adjusted, 3)
            + text_cell(row.method_class or "–")
            + text_cell(row.model)
            + text_cell(row.quality_tier)
            + f'<td data-sort="{esc(row.verification)}" title="{esc(row.verification_reason)}">'
            f"{esc(row.verification)}</td>" + text_cell(row.date) + "</tr>"
        )
    return (
        f'<table class="sortable leaderboard"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
