"""``mteval audit-log verify LOG [--card CARD]``: exit 0 when the gateway's audit log is the
chain the run wrote (and, with a card, ends at the head hash and line count it recorded),
1 when a line was edited, removed, added or moved."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_mteval.run.audit_log import verify_log


def add_audit_log_command(commands: Any) -> None:
    """Register ``audit-log verify`` on the ``mteval`` subcommand parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "audit-log", help="check the LLM gateway's hash-chained audit log", description=__doc__
    )
    actions = parser.add_subparsers(dest="action", required=True)
    verify = actions.add_parser("verify", help="check every line's link to the one before")
    verify.add_argument("log", help="path of the audit log (JSON lines)")
    verify.add_argument("--card", help="run card whose runner.gateway names this log's head")
    verify.add_argument("--head", help="expected sha256 of the last line")
    verify.set_defaults(run=_verify)


def _verify(args: argparse.Namespace) -> int:
    head: str | None = args.head
    count: int | None = None
    if args.card:
        try:
            card = json.loads(Path(args.card).read_text(encoding="utf-8"))
            gateway = card["runner"]["gateway"]
            head, count = str(gateway["head_sha256"]), int(gateway["lines"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"INVALID {args.card}: no gateway audit record in the card ({exc})")
            return 1
    checked = verify_log(Path(args.log), head, count)
    if checked.problems:
        for problem in checked.problems:
            print(f"INVALID {problem}")
        return 1
    anchor = "matches the card" if args.card else "compare it with the run card's head_sha256"
    print(f"OK {args.log}: {checked.lines} lines chained; head {checked.head} ({anchor})")
    return 0
