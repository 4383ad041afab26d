"""``mteval runs`` and ``mteval show``: read the run history without opening JSON by hand."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cli.command import Command
from pytest_mteval.history.index import HistoryError, read_index, resolve_run
from pytest_mteval.reports.terminal import view_lines

DEFAULT_RUNS = Path(".mteval") / "runs"


def _runs_arguments(runs: argparse.ArgumentParser) -> None:
    runs.add_argument("--dir", type=Path, default=DEFAULT_RUNS, help="runs folder")


def _show_arguments(show: argparse.ArgumentParser) -> None:
    show.add_argument(
        "run_ref", metavar="latest|RUN|CARD", help="the latest run, a run id, or a card's path"
    )
    show.add_argument("--dir", type=Path, default=DEFAULT_RUNS, help="runs folder")


def _runs(args: argparse.Namespace) -> int:
    rows = read_index(args.dir)
    if not rows:
        print(f"no runs recorded in {args.dir}")
        return 0
    header = (
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
    table = [header, *(_row(r) for r in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


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
