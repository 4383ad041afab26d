"""The ``mteval`` command: verify and describe run cards outside of pytest."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cli.audit_command import add_audit_command
from pytest_mteval.cli.audit_log_command import add_audit_log_command
from pytest_mteval.cli.compare_command import add_compare_command
from pytest_mteval.cli.corpus_crypto_commands import add_corpus_crypto_commands
from pytest_mteval.cli.page_commands import add_leaderboard_command, add_report_command
from pytest_mteval.cli.reproduce_command import add_reproduce_command
from pytest_mteval.cli.shipped_commands import add_shipped_commands
from pytest_mteval.cli.keygen_command import add_keygen_command, add_public_key_option, signature_line
from pytest_mteval.cli.steward_command import add_steward_command
from pytest_mteval.cli.submission_commands import add_bundle_command, add_publish_command
from pytest_mteval.cli.sweep_commands import add_sweep_commands
from pytest_mteval.cli.corpus_command import add_corpus_command
from pytest_mteval.errors import MtevalError
from pytest_mteval.cli.history_commands import add_history_commands
from pytest_mteval.review.chain import verify_chain
from pytest_mteval.cli.review_command import add_review_command


def _verify(args: argparse.Namespace) -> int:
    path = Path(args.card)
    try:
        card, foreign = read_verified(path)
        if foreign is not None:  # the reference harness's card or report, by its own rules
            print(f"OK {path}: {foreign}")
            return 0
        verify_chain(card, path)
        signed = signature_line(card, path, args.public_key)
    except MtevalError as exc:
        print(f"INVALID {exc}")
        return 1
    print(f"OK {path}: schema, fingerprint and run_card_hash verify ({card['run_card_hash'][:12]})")
    print(f"   {signed}")
    print(f"   {_code_line(card)}")
    return 0


def _code_line(card: dict[str, Any]) -> str:
    """What the card says of the code that ran; an old card has no code hash and is valid,
    but no bundle can be tied to it."""
    method = card.get("method") or {}
    code = method.get("code")
    if not isinstance(code, dict):
        return "no code hash (a card from before code hashes, or a method without a folder)"
    if code.get("sha256") is None:
        dist = code.get("distribution") or {}
        return f"code: distribution {dist.get('name')} {dist.get('version')} ({dist.get('sha256')})"
    return f"code sha256 {code['sha256'][:12]} ({code['files']} files, {code['rule']})"


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(runcard.json_schema(), indent=2, ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mteval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="re-check a run card's schema and hash")
    verify.add_argument("card", help="path of the run card JSON")
    add_public_key_option(verify)
    verify.set_defaults(run=_verify)
    schema = commands.add_parser("schema", help="print a JSON Schema")
    schema.add_argument("which", choices=["run-card"])
    schema.set_defaults(run=_schema)
    add_compare_command(commands)
    add_corpus_crypto_commands(add_corpus_command(commands))
    add_sweep_commands(commands)
    add_history_commands(commands)
    add_shipped_commands(commands)
    add_leaderboard_command(commands)
    add_report_command(commands)
    add_bundle_command(commands)
    add_publish_command(commands)
    add_audit_log_command(commands)
    add_keygen_command(commands)
    add_audit_command(commands)
    add_review_command(commands)
    add_reproduce_command(commands)
    add_steward_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
