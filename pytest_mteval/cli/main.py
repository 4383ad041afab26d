"""The ``mteval`` command: verify and describe run cards outside of pytest."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pytest_mteval.cli.audit_command import AUDIT
from pytest_mteval.cli.audit_log_command import AUDIT_LOG
from pytest_mteval.cli.command import Command, add_commands
from pytest_mteval.cli.compare_command import COMPARE
from pytest_mteval.cli.corpus_command import CORPUS
from pytest_mteval.cli.history_commands import RUNS, SHOW
from pytest_mteval.cli.keygen_command import KEYGEN
from pytest_mteval.cli.page_commands import LEADERBOARD, REPORT
from pytest_mteval.cli.printable_output import printable_output
from pytest_mteval.cli.reproduce_command import REPRODUCE
from pytest_mteval.cli.review_command import REVIEW
from pytest_mteval.cli.schema_command import SCHEMA
from pytest_mteval.cli.score_command import SCORE
from pytest_mteval.cli.shipped_commands import CORPORA, METHODS
from pytest_mteval.cli.steward_command import STEWARD
from pytest_mteval.cli.submission_commands import BUNDLE, PUBLISH
from pytest_mteval.cli.sweep_commands import MATRIX, SWEEP
from pytest_mteval.cli.verify_command import VERIFY

#: Every ``mteval`` subcommand, in the order ``mteval --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    VERIFY,
    SCHEMA,
    SCORE,
    COMPARE,
    CORPUS,
    SWEEP,
    MATRIX,
    RUNS,
    SHOW,
    METHODS,
    CORPORA,
    LEADERBOARD,
    REPORT,
    BUNDLE,
    PUBLISH,
    AUDIT_LOG,
    KEYGEN,
    AUDIT,
    REVIEW,
    REPRODUCE,
    STEWARD,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mteval", description=__doc__)
    add_commands(parser, COMMANDS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with printable_output():  # no file's escape sequence reaches the terminal
        args = build_parser().parse_args(argv)
        code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
