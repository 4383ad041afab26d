"""``mteval compare A.json B.json``: exit 0 when B is no significant regression of A, 1 when
it is, 2 when the runs cannot be compared (unreadable, edited, or made on other data).

``mteval compare A B C ... --html PAGE`` writes every entry of two or more cards of one corpus
side by side (``reports/side_by_side.py``); with two cards the text comparison still prints.

The gate's limits are those B's card was gated with (the ini's ``mteval_gate``,
``mteval_max_drop``... as pytest applied them), so that compare and pytest agree; an option
given here overrides its recorded value."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.baseline import BaselineError, dataset_difference, read_run, run_texts
from pytest_mteval.cards.compare import DEFAULT_TOP, compare_runs, markdown, text_lines
from pytest_mteval.cards.reference_note import reference_lines
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.history_commands import DEFAULT_RUNS
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.history.index import HistoryError, resolve_run
from pytest_mteval.option_catalog import float_default
from pytest_mteval.reports.side_by_side import DEFAULT_TOP_SPREAD, SideBySideError, write_page
from pytest_mteval.scoring.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from pytest_mteval.scoring.gate_options import (
    DEFAULT_SIGNIFICANCE,
    GateOptionError,
    GateOptions,
    parse_metric_gate,
)

UNUSABLE = 2


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="baseline run card or *_report.json (or latest, a run id)")
    parser.add_argument("b", help="new run card or *_report.json (or latest, a run id)")
    parser.add_argument(
        "more", nargs="*", metavar="C", help="further run cards, shown side by side with --html"
    )
    parser.add_argument(
        "--html",
        metavar="PAGE",
        help="write every entry of the runs side by side to this HTML page",
    )
    parser.add_argument(
        "--top-spread",
        type=int,
        default=DEFAULT_TOP_SPREAD,
        help="entries the page's disagreement filter keeps (widest chrF++ spread)",
    )
    parser.add_argument(
        "--format", choices=["text", "markdown"], default="text", help="output format"
    )
    gate = ("max-drop", "fail-under", "gate", "significance")
    add_shared_options("compare", parser.add_argument, *gate, unset="B's card's gate")
    parser.add_argument("--bootstrap", type=int, default=DEFAULT_RESAMPLES, help="resamples")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples")
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, help="entries listed per side")
    add_shared_options("compare", parser.add_argument, "allow-dataset-change")


def _card_path(ref: str) -> Path:
    """A file as given; else ``latest`` or a run id from ``.mteval/runs``."""
    path = Path(ref)
    return path if path.exists() else resolve_run(DEFAULT_RUNS, ref, Path.cwd())


def _recorded_gate(path: Path) -> dict[str, Any]:
    """The gate options B's card records (empty for a report or a card without a gate)."""
    try:
        card = runcard.load(path)
    except runcard.RunCardError:
        return {}
    options = (card.get("gate") or {}).get("options")
    return dict(options) if isinstance(options, dict) else {}


def run_side_by_side(refs: list[str], html: str, top_spread: int) -> int:
    """The page of two or more cards; 0 when written, 2 with a one-line reason."""
    try:
        paths = [_card_path(ref) for ref in refs]
        count = write_page(paths, Path(html), top_spread)
    except (SideBySideError, HistoryError) as exc:
        print(f"mteval compare: {exc}")
        return UNUSABLE
    except OSError as exc:
        print(f"mteval compare: cannot write {html}: {exc.strerror or exc}")
        return UNUSABLE
    print(f"mteval compare: {len(paths)} runs, {count} entries side by side in {html}")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    if args.more or args.html is not None:
        refs = [args.a, args.b, *args.more]
        if args.html is None:
            print(
                f"mteval compare: {len(refs)} runs are compared side by side only: "
                "pass --html PAGE (the text comparison takes two)"
            )
            return UNUSABLE
        written = run_side_by_side(refs, args.html, args.top_spread)
        if args.more or written != 0:
            return written
    try:
        args.a, args.b = str(_card_path(args.a)), str(_card_path(args.b))
        recorded = _recorded_gate(Path(args.b))

        def given(name: str, default: Any) -> Any:
            value = getattr(args, name)
            return value if value is not None else recorded.get(name, default)

        gates = recorded.get("metric_gates") or {}
        options = GateOptions(
            max_drop=float(given("max_drop", float_default("max-drop"))),
            fail_under=given("fail_under", None),
            metric_gates=dict(
                (parse_metric_gate(g) for g in args.gate)
                if args.gate is not None
                else ((str(k), float(v)) for k, v in gates.items())
            ),
            significance=float(given("significance", DEFAULT_SIGNIFICANCE)),
            n_bootstrap=args.bootstrap,
            seed=args.seed,
        )
        a, b = read_run(Path(args.a)), read_run(Path(args.b))
    except (GateOptionError, BaselineError, HistoryError, TypeError, ValueError) as exc:
        print(f"mteval compare: {exc}")
        return UNUSABLE
    problem = dataset_difference(a, b.dataset_sha256, run_texts(b), what=f"{args.b}")
    if problem is not None and not args.allow_dataset_change:
        print(
            f"mteval compare: {args.a} and {args.b} were not made on the same dataset: "
            f"{problem}. Pass --allow-dataset-change to compare the unchanged entries."
        )
        return UNUSABLE
    try:
        comparison = compare_runs(a, b, options, top=max(0, args.top))
    except Exception as exc:  # a comparison ends in a message, never in a traceback
        print(f"mteval compare: cannot compare: {type(exc).__name__}: {exc}")
        return UNUSABLE
    if not comparison.verdict.common_entries and comparison.verdict.baseline is not None:
        print(f"mteval compare: {args.a} and {args.b} have no entry in common: nothing to compare")
        return UNUSABLE
    references = reference_lines([("A", Path(args.a)), ("B", Path(args.b))])
    if args.format == "markdown":
        print(markdown(comparison), end="")
        print("".join(f"\n> {line}\n" for line in references), end="")
    else:
        print("\n".join([*text_lines(comparison), *references]))
    return 0 if comparison.verdict.passed else 1


COMPARE = Command(
    "compare",
    help="compare two run cards (B against baseline A), or show two or more side by side",
    add_arguments=_arguments,
    run=run_compare,
    description=__doc__,
)
