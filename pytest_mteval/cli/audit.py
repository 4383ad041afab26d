"""``mteval audit METHOD``: exit 0 when the code does not contradict the declared dependency
class, 1 when it does (or, with ``--strict``, when anything is found), 2 when the folder cannot
be audited."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_mteval.methods.audit import CATEGORIES, AuditError, AuditResult, audit_method


def add_audit_command(commands: Any) -> None:
    """Register ``audit`` on the ``mteval`` subcommand parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "audit",
        help="list what a method's code can reach and check it against its dependency class",
        description=__doc__,
    )
    parser.add_argument("method", help="method folder (with method.json)")
    parser.add_argument("--strict", action="store_true", help="fail on any finding")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    try:
        result = audit_method(Path(args.method))
    except AuditError as exc:
        print(f"mteval audit: {exc}")
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(audit_lines(result)))
    failed = not result.passed or (args.strict and bool(result.findings))
    return 1 if failed else 0


def audit_lines(result: AuditResult) -> list[str]:
    lines = [
        f"audit of {result.folder} (dependency class {result.dependency_class}): "
        f"{result.files} Python file(s), {len(result.findings)} finding(s)"
    ]
    width = max(len(c) for c in CATEGORIES)
    for category in CATEGORIES:
        found = [f for f in result.findings if f.category == category]
        if not found:
            lines.append(f"  {category:<{width}}  -")
        for finding in found:
            lines.append(f"  {category:<{width}}  {finding.file}:{finding.line}  {finding.what}")
    lines.extend(f"CONTRADICTION {c}" for c in result.contradictions)
    if result.passed:
        lines.append(f"OK: nothing found contradicts class {result.dependency_class}")
    return lines
