"""``mteval sweep FILE [--shard K/N] [pytest args]`` and ``mteval matrix SWEEP_DIR|CARDS...``
(every shard's folder merged, each card verified)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from pytest_mteval.cards.signing import load_public_key
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.errors import MtevalError
from pytest_mteval.sweep.matrix import DEFAULT_FLOOR
from pytest_mteval.sweep.merge import gather, merged_markdown
from pytest_mteval.sweep.shards import parse_shard


def _sweep_arguments(sweep: argparse.ArgumentParser) -> None:
    sweep.add_argument("file", help="sweep file (TOML)")
    add_shared_options(
        "sweep", sweep.add_argument, "dry-run", "allow-over-budget", "shard", "dask-scheduler"
    )
    sweep.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to every run")


def _matrix_arguments(matrix: argparse.ArgumentParser) -> None:
    matrix.add_argument(
        "sources", nargs="+", help="sweep output folders (every shard's), or run cards"
    )
    matrix.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="PUB",
        help="show only cards signed by one of these Ed25519 public keys (PEM; repeatable)",
    )
    matrix.add_argument("--method", help="label of the engineered run to test against baselines")
    matrix.add_argument(
        "--floor",
        type=float,
        default=DEFAULT_FLOOR,
        help=f"sentence chrF++ under which an entry counts as failed ({DEFAULT_FLOOR:g})",
    )


def _sweep(args: argparse.Namespace) -> int:
    extra, own = _own_options(list(args.pytest_args))
    command = [sys.executable, "-m", "pytest", f"--mteval-sweep={args.file}"]
    command += ["--mteval-dry-run"] if args.dry_run or "--dry-run" in own else []
    allowed = args.allow_over_budget or "--allow-over-budget" in own
    command += ["--mteval-allow-over-budget"] if allowed else []
    shard = own.get("--shard", args.shard)
    if shard is not None:
        try:
            command.append(f"--mteval-shard={parse_shard(shard, '--shard').text}")
        except MtevalError as exc:
            print(f"mteval sweep: {exc}", file=sys.stderr)
            return 4
    scheduler = own.get("--dask-scheduler", args.dask_scheduler)
    command += [f"--mteval-dask-scheduler={scheduler}"] if scheduler else []
    command += extra
    return subprocess.run(command, check=False).returncode


def _own_options(extra: list[str]) -> tuple[list[str], dict[str, str]]:
    """The sweep's own options given after FILE (argparse leaves them to pytest's args),
    apart from pytest's; everything after ``--`` is pytest's."""
    own: dict[str, str] = {}
    rest: list[str] = []
    words = iter(extra)
    for word in words:
        if word == "--":
            rest += list(words)
            break
        name, _, value = word.partition("=")
        if name in ("--shard", "--dask-scheduler"):
            own[name] = value if "=" in word else next(words, "")
        elif word in ("--dry-run", "--allow-over-budget"):
            own[word] = ""
        else:
            rest.append(word)
    return rest, own


def _matrix(args: argparse.Namespace) -> int:
    """Exit 1 when a card was left out because it does not verify; 2 when none verifies."""
    sources = [Path(s) for s in args.sources]
    try:
        keys = [load_public_key(Path(path)) for path in args.public_key]
        merged = gather(sources, keys)
        if not merged.rows:
            for rejected in merged.rejected:
                print(f"mteval matrix: {rejected.where}: {rejected.reason}", file=sys.stderr)
            if not merged.rejected:
                print(f"mteval matrix: no run card in {', '.join(args.sources)}", file=sys.stderr)
            return 2
        lines = merged_markdown(merged, args.method, args.floor)
    except MtevalError as exc:
        print(f"mteval matrix: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 1 if merged.rejected else 0


SWEEP = Command(
    "sweep",
    help="run every combination of a sweep file (same as pytest --mteval-sweep=FILE)",
    add_arguments=_sweep_arguments,
    run=_sweep,
)
MATRIX = Command(
    "matrix",
    help="print the matrix report of a sweep or of run cards",
    add_arguments=_matrix_arguments,
    run=_matrix,
)
