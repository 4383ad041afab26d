"""The ``mteval`` command: verify and describe run cards outside of pytest."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_mteval import runcard
from pytest_mteval.compare_cli import add_compare_command
from pytest_mteval.review.cli import add_review_command
from pytest_mteval.review.ingest import verify_chain


def _verify(args: argparse.Namespace) -> int:
    path = Path(args.card)
    try:
        card = runcard.load(path)
        runcard.verify(card, path)
        verify_chain(card, path)
    except runcard.RunCardError as exc:
        print(f"INVALID {exc}")
        return 1
    print(f"OK {path}: schema, fingerprint and run_card_hash verify ({card['run_card_hash'][:12]})")
    return 0


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(runcard.json_schema(), indent=2, ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mteval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="re-check a run card's schema and hash")
    verify.add_argument("card", help="path of the run card JSON")
    verify.set_defaults(run=_verify)
    schema = commands.add_parser("schema", help="print a JSON Schema")
    schema.add_argument("which", choices=["run-card"])
    schema.set_defaults(run=_schema)
    add_compare_command(commands)
    add_review_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
