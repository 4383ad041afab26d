"""The runs ``mteval runs`` lists, ranked by the one rule the leaderboard uses.

Each run's card is read and verified again: a ranking rests on the card, never on the index's
copy of its numbers. A run is ranked only among runs of its board (``board_rules.board_key``);
every other run is listed apart with the reason (``board_rules.ranking_reasons``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.reports.board_rules import (
    BoardKey,
    board_key,
    rank_spans,
    rank_text,
    ranking_reasons,
)


@dataclass(frozen=True)
class ListedRun:
    """One run as listed: its index row, its rank on its board, or why it has none."""

    row: dict[str, Any]
    rank: str = ""
    reason: str | None = None


def view_row(card: CardView, path: Path) -> dict[str, Any]:
    """An index row (``index.index_row``'s keys) for a card named on the command line."""
    scores, gate, method = card.scores, card.gate, card.method
    ci = scores.interval("composite")
    gated = gate is not None and bool(gate.baseline or gate.metrics)
    partial = card.complete is False or (
        card.coverage is not None and card.coverage.complete is False
    )
    return {
        "run_id": card.run_id,
        "timestamp": card.timestamp,
        "path": str(path),
        "method": None if method is None else getattr(method, "method_id", None) or method.name,
        "model": card.model_slug,
        "corpus": card.dataset.id,
        "composite": scores.composite,
        "composite_ci": [ci.lower, ci.upper] if ci is not None else None,
        "tier": scores.quality_tier,
        "gate": None if gate is None or not gated else ("passed" if gate.passed else "failed"),
        "complete": not partial,
        "incomplete_reason": card.incomplete_reason if card.complete is False else None,
    }


def rows_of_cards(paths: Sequence[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """Index rows of the cards at ``paths``, and a line per card that cannot be read."""
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for path in paths:
        try:
            card, _ = read_verified(path)
        except runcard.RunCardError as exc:
            problems.append(str(exc))
            continue
        rows.append(view_row(card, path))
    return rows, problems


def listed_runs(rows: Sequence[dict[str, Any]]) -> list[ListedRun]:
    """The runs of ``rows`` (index order), each with its rank or the reason it has none."""
    views: list[tuple[int, CardView]] = []
    problems: dict[int, str] = {}
    for number, row in enumerate(rows):
        try:
            views.append((number, read_verified(Path(str(row.get("path"))))[0]))
        except runcard.RunCardError as exc:
            problems[number] = f"the card does not verify: {exc}"
    reasons = ranking_reasons([(str(rows[n].get("path")), view) for n, view in views])
    boards: dict[BoardKey, list[tuple[int, CardView]]] = {}
    for (number, view), reason in zip(views, reasons, strict=True):
        if reason is None:
            boards.setdefault(board_key(view), []).append((number, view))
        else:
            problems[number] = reason
    ranks: dict[int, str] = {}
    for members in boards.values():
        spans = rank_spans([_interval(view) for _, view in members])
        for (number, _), span in zip(members, spans, strict=True):
            ranks[number] = rank_text(span)
    return [
        ListedRun(dict(row), ranks.get(number, ""), problems.get(number))
        for number, row in enumerate(rows)
    ]


def _interval(card: CardView) -> tuple[float | None, float | None]:
    composite = card.scores.composite
    if composite is None:
        return None, None
    ci = card.scores.interval("composite")
    low = ci.lower if ci is not None and ci.lower is not None else composite
    high = ci.upper if ci is not None and ci.upper is not None else composite
    return low, high
