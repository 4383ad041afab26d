"""``mteval audit-log verify LOG [--card CARD]``: exit 0 when the gateway's audit log is the
chain the run wrote (and, with a card, ends at the head hash and line count it recorded),
1 when a line was edited, removed, added or moved.

The card is verified first (schema, fingerprint, run_card_hash, and its signature when
``--public-key`` is given): the head hash of a card that does not verify could name any
chain, a forger's own included, so it is never trusted."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cards.signing import load_public_key
from pytest_mteval.cards.verification_tier import signature_verdict
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.verify_command import add_public_key_option
from pytest_mteval.errors import MtevalError
from pytest_mteval.run.gateway_audit_log import verify_log


def _arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("log", help="path of the audit log (JSON lines)")
    verify.add_argument("--card", help="run card whose runner.gateway names this log's head")
    verify.add_argument("--head", help="expected sha256 of the last line")
    add_public_key_option(verify)


def _verify(args: argparse.Namespace) -> int:
    head: str | None = args.head
    count: int | None = None
    if args.card:
        path = Path(args.card)
        try:
            card = runcard.load(path)
            runcard.verify(card, path)  # before its head hash means anything
            key = None if args.public_key is None else load_public_key(Path(args.public_key))
        except MtevalError as exc:
            print(f"INVALID {exc}")
            return 1
        signed, line = signature_verdict(card, path, key)
        if not signed:
            print(f"INVALID {line}")
            return 1
        try:
            gateway = card["runner"]["gateway"]
            head, count = str(gateway["head_sha256"]), int(gateway["lines"])
        except (ValueError, KeyError, TypeError) as exc:
            print(f"INVALID {args.card}: no gateway audit record in the card ({exc!r})")
            return 1
    checked = verify_log(Path(args.log), head, count)
    if checked.problems:
        for problem in checked.problems:
            print(f"INVALID {problem}")
        return 1
    anchor = (
        "matches the card, whose own hash verifies"
        if args.card
        else "compare it with the run card's head_sha256"
    )
    print(f"OK {args.log}: {checked.lines} lines chained; head {checked.head} ({anchor})")
    return 0


AUDIT_LOG = Command(
    "audit-log",
    help="check the LLM gateway's hash-chained audit log",
    description=__doc__,
    subcommands=(
        Command(
            "verify",
            help="check every line's link to the one before",
            add_arguments=_arguments,
            run=_verify,
            description=__doc__,
        ),
    ),
)
