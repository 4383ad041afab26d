"""The leaderboard as markdown (for a pull request or a README) and as an HTML page with the
cost-versus-quality plot of each board."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Final

from markupsafe import Markup

from pytest_mteval.reports import plots
from pytest_mteval.reports.leaderboard import PROXY_NOTE, Board, Leaderboard, Row
from pytest_mteval.reports.markdown import md_text
from pytest_mteval.reports.page import number, render, svg

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
    "Tools used",
    "Open source",
    "Prompt version",
    "Temperature",
    "Quality tier",
    "Verification",
    "Date",
)
_MARKS: Final = {"A2": "⚠ external dependency", "X": "🔒 closed"}
#: The columns holding a card's own strings (method, class, model, the method-interface
#: columns, tier, verification, date).
_TEXT_COLUMNS: Final = frozenset({1, *range(10, 19)})
#: Dependency classes with a badge style in static/page.css; any other gets "dep-other".
_BADGES: Final = frozenset({"S", "O", "A1", "A2", "X"})


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
        row.shown,
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
        row.tools_used,
        row.open_source,
        row.prompt_version,
        row.temperature,
        row.quality_tier,
        row.verification,
        row.date,
    ]


def markdown(board_set: Leaderboard) -> str:
    """The boards as markdown; every string from a card, a path or an error is literal text
    there (:func:`md_text`), so a name cannot add HTML, a link or emphasis to a README."""
    lines = ["# Leaderboard", "", f"> **Note.** {PROXY_NOTE}", ""]
    for board in board_set.boards:
        lines += [f"## {md_text(board.title())}", "", _md_row(list(COLUMNS))]
        lines.append("|" + "|".join("---" for _ in COLUMNS) + "|")
        for row in board.rows:
            cells = [md_text(c) if i in _TEXT_COLUMNS else c for i, c in enumerate(_cells(row))]
            mark = dependency_mark(row)
            cells[1] += f" `{mark}`" if mark else ""
            lines.append(_md_row(cells))
        lines += ["", _tie_note(board), ""]
    lines += _md_not_ranked(board_set.not_ranked)
    lines += [f"- {md_text(note)}" for note in board_set.notes]
    lines += [f"- {md_text(line)}" for line in board_set.refused]
    return "\n".join(lines).rstrip() + "\n"


#: The columns of the cards listed apart.
APART_COLUMNS: Final = (
    *("Method", "Model", "Corpus", "Entries", "Composite", "Verification", "Why not ranked"),
)


def _apart_cells(row: Row) -> list[str]:
    """A card listed apart still shows who verified it: the verdict is the same one verifier's."""
    return [
        *(row.method, row.model, row.corpus, str(row.entries), number(row.composite, 3)),
        row.verification,
    ]


def _md_not_ranked(rows: list[Row]) -> list[str]:
    """The cards the ranking rule leaves out (board_rules.py): each with its reason."""
    if not rows:
        return []
    lines = ["## Not ranked", ""]
    lines += [_md_row(list(APART_COLUMNS)), "|" + "|".join("---" for _ in APART_COLUMNS) + "|"]
    for row in rows:
        lines.append(_md_row([md_text(c) for c in [*_apart_cells(row), row.not_ranked]]))
    return [*lines, ""]


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _tie_note(board: Board) -> str:
    return (
        "Rank a–b: the composite's 95% interval overlaps those of the cards ranked a to b, "
        "so they are tied. Unscored cards share the last place."
    )


def html(board_set: Leaderboard) -> str:
    return render(
        "leaderboard.html.j2",
        title="pytest-mteval leaderboard",
        data={"page": "leaderboard", "boards": [_board_data(b) for b in board_set.boards]},
        proxy_note=PROXY_NOTE,
        refused=board_set.refused,
        notes=board_set.notes,
        apart_columns=APART_COLUMNS,
        apart=[[*_apart_cells(r), r.not_ranked] for r in board_set.not_ranked],
        columns=COLUMNS,
        boards=[
            {
                "title": board.title(),
                "chart": _chart(board),
                "no_chart": plots.no_cost_plot(_points(board)),
                "rows": [_html_row(r) for r in board.rows],
                "tie_note": _tie_note(board),
            }
            for board in board_set.boards
        ],
    )


def _chart(board: Board) -> Markup | None:
    """The cost-versus-quality plot, or None when no card's cost would spread the points."""
    points = _points(board)
    if plots.no_cost_plot(points) is not None:
        return None
    return svg(plots.cost_quality_scatter(points, "composite against cost per entry"))


def _points(board: Board) -> list[plots.ScatterPoint]:
    return [
        plots.ScatterPoint(
            f"{r.rank_text()}. {r.shown} ({r.model})",
            r.cost_per_entry_usd,
            r.composite,
            r.lower,
            r.upper,
        )
        for r in board.rows
        if r.composite is not None
    ]


def _html_row(row: Row) -> dict[str, Any]:
    """A row of a board's table: the card's fields, and the texts its cells show."""
    cls = row.dependency_class
    return asdict(row) | {
        "rank": row.rank_text(),
        "mark": dependency_mark(row),
        "badge": f"dep-{cls}" if cls in _BADGES else "dep-other",
        "composite_text": number(row.composite, 3),
        "interval_text": (
            f"[{row.lower:.3f}, {row.upper:.3f}]"
            if row.lower is not None and row.upper is not None
            else ""
        ),
        "method_class": row.method_class or "–",
        "shown": row.shown,
        # a line may break after each "/" of a model id (anthropic/claude-haiku-4.5)
        "model_html": Markup("/<wbr>").join(row.model.split("/")),
    }


def _board_data(board: Board) -> dict[str, Any]:
    """A board for scripts reading the page: its corpus and each row's rank and scores."""
    keys = ("run_id", "method", "model", "composite", "lower", "upper", "cost_per_entry_usd")
    return {
        "dataset_id": board.dataset_id,
        "version": board.version,
        "sha256": board.sha256,
        "rows": [{"rank": r.rank_text(), **{k: getattr(r, k) for k in keys}} for r in board.rows],
    }
