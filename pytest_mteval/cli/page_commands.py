"""``mteval leaderboard`` and ``mteval report``: the pages of this package, from the shell."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cards.baseline import BaselineError, read_run
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cards.signing import load_public_key
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.errors import MtevalError
from pytest_mteval.reports import leaderboard
from pytest_mteval.reports.page import is_page_path
from pytest_mteval.scoring.gate_options import EntryGateOptions


def write_page(text: str, out: str, default_name: str) -> Path:
    """Write ``text`` to ``out`` when it names a page (``*.html``), else into the folder
    ``out`` as ``default_name``; an OSError is the caller's to report."""
    target = Path(out) if is_page_path(out) else Path(out) / default_name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def _leaderboard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cards", nargs="+", help="run card files or folders holding them")
    parser.add_argument("--domain", default=None, help="rank on this domain code (§2.7)")
    parser.add_argument("--html", default=None, metavar="OUT", help="HTML page path or folder/")
    parser.add_argument(
        "--maintainer-key",
        type=Path,
        action="append",
        default=[],
        metavar="PUB",
        help="a maintainer's Ed25519 public key (repeatable): only an uncached reproduction "
        "signed by one, not by the submitter's key, makes a card maintainer-verified",
    )
    parser.add_argument(
        "--governance-key",
        type=Path,
        action="append",
        default=[],
        metavar="PUB",
        help="the governance organisation's Ed25519 public key (repeatable): only a review "
        "record signed by one makes a card community-validated or hides the card it extends",
    )


def run_leaderboard(args: argparse.Namespace) -> int:
    paths = leaderboard.card_paths(args.cards)
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"mteval leaderboard: {missing[0]}: no such file or folder", file=sys.stderr)
        return 2
    from pytest_mteval.reports import leaderboard_page  # matplotlib: imported when used

    try:
        keys = [load_public_key(path) for path in args.maintainer_key]
        governance = [load_public_key(path) for path in args.governance_key]
    except MtevalError as exc:
        print(f"mteval leaderboard: {exc}", file=sys.stderr)
        return 2
    board_set = leaderboard.build(paths, args.domain, keys, governance)
    for line in board_set.refused:
        print(line, file=sys.stderr)
    if not board_set.boards and not board_set.not_ranked:
        for note in board_set.notes:
            print(note, file=sys.stderr)
        print("mteval leaderboard: no verified card to rank", file=sys.stderr)
        return 1
    if args.html is not None:
        try:
            written = write_page(leaderboard_page.html(board_set), args.html, "leaderboard.html")
        except OSError as exc:
            print(f"mteval leaderboard: cannot write {args.html}: {exc}", file=sys.stderr)
            return 2
        print(f"leaderboard written to {written}", file=sys.stderr)
    print(leaderboard_page.markdown(board_set), end="")
    return 1 if board_set.refused else 0


def _report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", type=Path, help="run card JSON")
    parser.add_argument("--html", required=True, metavar="OUT", help="page path or folder/")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="run card (or reference-harness report) to show regressed entries against",
    )
    add_shared_options("report", parser.add_argument, "entry-max-drop")


def run_report_command(args: argparse.Namespace) -> int:
    from pytest_mteval.reports.html_report import run_report  # matplotlib: imported when used

    try:
        card, _ = read_verified(args.card)  # a foreign card or report, marked as such
        baseline = read_run(args.baseline) if args.baseline is not None else None
    except (runcard.RunCardError, BaselineError) as exc:
        print(f"mteval report: {exc}", file=sys.stderr)
        return 1
    options = EntryGateOptions(entry_max_drop=args.entry_max_drop)
    name = args.card.name.removesuffix(".json") + ".html"
    try:
        written = write_page(run_report(card, baseline, options), args.html, name)
    except OSError as exc:
        print(f"mteval report: cannot write {args.html}: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {written}")
    return 0


LEADERBOARD = Command(
    "leaderboard",
    help="rank verified run cards, like with like (markdown; --html for a page)",
    add_arguments=_leaderboard_arguments,
    run=run_leaderboard,
    description="Rank run cards (files or folders of *.json) by composite, one board per "
    "track (official gold-standard runs first), corpus version, scoring profile and "
    "composite metric set. Partial, interrupted or incomplete cards are listed apart, "
    "never ranked; class X methods are not listed. Cards that do not verify are refused "
    "with the reason (exit 1).",
)
REPORT = Command(
    "report",
    help="write the HTML report of one run card",
    add_arguments=_report_arguments,
    run=run_report_command,
    description="Write a self-contained HTML report of a verified run card.",
)
