"""``mteval audit METHOD``: exit 0 when the code does not contradict the declared dependency
class, 1 when it does (or, with ``--strict``, when anything is found, an overlap of the
method's data with a corpus that method.json does not declare included), 2 when the folder or
a corpus cannot be read. The method's data files are compared with each ``--corpus`` (by
default, the shipped corpora of the pairs it supports) and the overlap is listed
(``cards/data_overlap.py``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_mteval.cards.data_overlap import overlap, overlap_lines
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.corpus import load_corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.audit import CATEGORIES, AuditError, AuditResult, audit_method
from pytest_mteval.methods.manifest import load_manifest
from pytest_mteval.run.secret_corpus import open_corpus
from pytest_mteval.shipped_corpora import shipped_corpora


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("method", help="method folder (with method.json)")
    parser.add_argument("--strict", action="store_true", help="fail on any finding")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--corpus",
        action="append",
        default=[],
        help="compare the method's data files with this corpus (repeatable; default: the "
        "shipped corpora of its pairs)",
    )
    add_shared_options("audit", parser.add_argument, "corpus-key-file")


def run_audit(args: argparse.Namespace) -> int:
    try:
        result = audit_method(Path(args.method))
    except AuditError as exc:
        print(f"mteval audit: {exc}")
        return 2
    try:
        overlaps = _overlaps(Path(args.method), args.corpus, args.corpus_key_file)
    except MtevalError as exc:
        print(f"mteval audit: {exc}")
        return 2
    if args.json:
        print(json.dumps({**result.to_json(), "overlap": overlaps}, indent=2, ensure_ascii=False))
    else:
        print("\n".join(audit_lines(result)))
        for report in overlaps:
            print("\n".join(overlap_lines(report)))
    undeclared = any(r["files"] and not r["declared"] for r in overlaps)
    failed = not result.passed or (args.strict and (bool(result.findings) or undeclared))
    return 1 if failed else 0


def _overlaps(folder: Path, given: list[str], key_file: str | None) -> list[dict[str, Any]]:
    """The overlap report of the method's data with each corpus given, or with each shipped
    corpus of a pair it supports."""
    manifest = load_manifest(folder / "method.json")
    key = Path(key_file) if key_file else None
    if given:
        corpora = [open_corpus(Path(path), key) for path in given]
    else:
        shipped = (load_corpus(path) for _, path, _, _ in shipped_corpora())
        corpora = [
            c
            for c in shipped
            if manifest.supports(c.dataset.source_language, c.dataset.target_language)
        ]
    return [overlap(folder, corpus, manifest) for corpus in corpora]


def audit_lines(result: AuditResult) -> list[str]:
    lines = [
        f"audit of {result.folder} (dependency class {result.dependency_class}): "
        f"{result.files} Python or JavaScript file(s), {len(result.findings)} finding(s)"
    ]
    width = max(len(c) for c in CATEGORIES)
    for category in CATEGORIES:
        found = [f for f in result.findings if f.category == category]
        if not found:
            lines.append(f"  {category:<{width}}  -")
        for finding in found:
            lines.append(f"  {category:<{width}}  {finding.file}:{finding.line}  {finding.what}")
    lines.extend(f"CONTRADICTION {c}" for c in result.contradictions)
    lines.extend(f"NOT AUDITED {why}" for why in result.not_audited)
    if result.passed:
        lines.append(f"OK: nothing found contradicts class {result.dependency_class}")
    return lines


AUDIT = Command(
    "audit",
    help="list what a method's code can reach and check it against its dependency class",
    add_arguments=_arguments,
    run=run_audit,
    description=__doc__,
)
