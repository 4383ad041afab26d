"""``mteval runs`` and ``mteval show``: read the run history without opening JSON by hand.

``mteval runs`` ranks by the leaderboard's one rule (``reports/board_rules.py``): the runs it
does not rank are listed apart under "Not ranked" with the reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cli.command import Command
from pytest_mteval.history.index import HistoryError, read_index, resolve_run
from pytest_mteval.history.run_listing import listed_runs, rows_of_cards
from pytest_mteval.reports.leaderboard import card_paths
from pytest_mteval.reports.terminal import view_lines

DEFAULT_RUNS = Path(".mteval") / "runs"


HEADER = (
    "rank",
    "time",
    "run",
    "method",
    "model",
    "corpus",
    "composite [95% CI]",
    "tier",
    "gate",
    "scope",
)


def _runs_arguments(runs: argparse.ArgumentParser) -> None:
    runs.add_argument(
        "cards", nargs="*", help="cards or folders of cards to list instead of the runs folder"
    )
    runs.add_argument("--dir", type=Path, default=DEFAULT_RUNS, help="runs folder")


def _show_arguments(show: argparse.ArgumentParser) -> None:
    show.add_argument(
        "run_ref", metavar="latest|RUN|CARD", help="the latest run, a run id, or a card's path"
    )
    show.add_argument("--dir", type=Path, default=DEFAULT_RUNS, help="runs folder")


def _runs(args: argparse.Namespace) -> int:
    if args.cards:
        rows, problems = rows_of_cards(card_paths(args.cards))
        for problem in problems:
            print(f"REFUSED {problem}", file=sys.stderr)
        where = ", ".join(args.cards)
    else:
        rows, problems, where = read_index(args.dir), [], str(args.dir)
    if not rows:
        print(f"no runs recorded in {where}")
        return 1 if problems else 0
    listed = listed_runs(rows)
    ranked = [run for run in listed if run.reason is None]
    apart = [run for run in listed if run.reason is not None]
    if ranked:
        print("Ranked (rank among runs of the same corpus version, profile and metrics):")
        _table(HEADER, [(run.rank, *_row(run.row)) for run in ranked])
    else:
        print("No run is ranked: each is listed under Not ranked with the reason.")
    if apart:
        print("\nNot ranked:")
        _table(
            (*HEADER, "why not ranked"),
            [("–", *_row(run.row), str(run.reason)) for run in apart],
        )
    return 1 if problems else 0


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    table = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _score(value: Any) -> str | None:
    """A score of the index as shown; None when absent, "?" when the index holds no number
    there (the file is the user's: a hand edit must not crash the listing)."""
    if value is None:
        return None
    return f"{value:.3f}" if isinstance(value, int | float) and not isinstance(value, bool) else "?"


def _row(r: dict[str, Any]) -> tuple[str, ...]:
    composite = _score(r.get("composite")) or "-"
    ci = r.get("composite_ci")
    bounds = [_score(v) for v in ci] if isinstance(ci, list) and len(ci) == 2 else [None, None]
    if bounds[0] is not None and bounds[1] is not None:
        composite += f" [{bounds[0]}, {bounds[1]}]"
    return (
        str(r.get("timestamp") or "-"),
        str(r.get("run_id") or "-")[:8],
        str(r.get("method") or "-"),
        str(r.get("model") or "-"),
        str(r.get("corpus") or "-"),
        composite,
        str(r.get("tier") or "-"),
        str(r.get("gate") or "-"),
        "complete"
        if r.get("complete")
        else "incomplete"
        if r.get("incomplete_reason")
        else "partial",
    )


def _show(args: argparse.Namespace) -> int:
    try:
        path = resolve_run(args.dir, args.run_ref, Path.cwd())
        card, _ = read_verified(path)  # a foreign card or report is shown marked as such
        lines = view_lines(card, str(path))
    except (HistoryError, runcard.RunCardError) as exc:
        print(f"mteval show: {exc}")
        return 2
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # a field the schema leaves open (an extension's block) of a shape the summary
        # cannot read: one line, never a traceback
        print(f"mteval show: {path}: cannot summarize this card ({type(exc).__name__}: {exc})")
        return 2
    print("\n".join(lines))
    if card.coverage is not None and card.coverage.complete is False:
        print("scope            partial: " + "; ".join(card.coverage.reasons))
    gate = card.gate
    if gate is not None and (gate.baseline or gate.metrics):
        verdict = "PASSED" if gate.passed else "FAILED"
        print(f"gate             {verdict} against {gate.baseline or '(no baseline)'}")
    return 0


RUNS = Command(
    "runs",
    help="list the runs recorded in .mteval/runs",
    add_arguments=_runs_arguments,
    run=_runs,
)
SHOW = Command(
    "show",
    help="summarize one run: latest, a run id, or a card",
    add_arguments=_show_arguments,
    run=_show,
)
