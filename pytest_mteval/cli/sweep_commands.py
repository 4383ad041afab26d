"""``mteval sweep FILE [pytest args]`` and ``mteval matrix SWEEP_DIR|CARDS...``."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from pytest_mteval.cli.command import Command
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.sweep.matrix import DEFAULT_FLOOR, MatrixError, matrix_markdown


def _sweep_arguments(sweep: argparse.ArgumentParser) -> None:
    sweep.add_argument("file", help="sweep file (TOML)")
    add_shared_options("sweep", sweep.add_argument, "dry-run", "allow-over-budget")
    sweep.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to every run")


def _matrix_arguments(matrix: argparse.ArgumentParser) -> None:
    matrix.add_argument("sources", nargs="+", help="a sweep's output folder, or run cards")
    matrix.add_argument("--method", help="label of the engineered run to test against baselines")
    matrix.add_argument(
        "--floor",
        type=float,
        default=DEFAULT_FLOOR,
        help=f"sentence chrF++ under which an entry counts as failed ({DEFAULT_FLOOR:g})",
    )


def _sweep(args: argparse.Namespace) -> int:
    command = [sys.executable, "-m", "pytest", f"--mteval-sweep={args.file}"]
    command += ["--mteval-dry-run"] if args.dry_run else []
    command += ["--mteval-allow-over-budget"] if args.allow_over_budget else []
    extra = list(args.pytest_args)
    command += extra[1:] if extra[:1] == ["--"] else extra
    return subprocess.run(command, check=False).returncode


def _matrix(args: argparse.Namespace) -> int:
    try:
        lines = matrix_markdown([Path(s) for s in args.sources], args.method, args.floor)
    except MatrixError as exc:
        print(f"mteval matrix: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


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
