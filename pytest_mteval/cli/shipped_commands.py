"""``mteval methods`` and ``mteval corpora``: what is installed and usable by name."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from pytest_mteval.cli.command import Command
from pytest_mteval.methods.manifest import ManifestError
from pytest_mteval.methods.named_methods import listings
from pytest_mteval.shipped_corpora import shipped_corpora


def _table(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _methods(args: argparse.Namespace) -> int:
    try:
        found = listings()
    except ManifestError as exc:
        print(f"mteval methods: {exc}")
        return 2
    rows = [("name", "class", "dependency class", "origin")]
    for item in found:
        manifest = item.manifest
        rows.append(
            (
                item.name,
                manifest.method_class if manifest else "-",
                manifest.dependency_class if manifest else "-",
                item.origin + (f"  BROKEN: {item.problem}" if item.problem else ""),
            )
        )
    _table(rows)
    return 0


def _corpora(args: argparse.Namespace) -> int:
    rows = [("name", "pair", "entries", "path (--mteval-corpus=shipped:NAME)")]
    for name, path, pair, count in shipped_corpora():
        rows.append((name, pair, str(count), str(path)))
    _table(rows)
    return 0


METHODS = Command("methods", help="list methods installed by name", run=_methods)
CORPORA = Command("corpora", help="list the corpora shipped with pytest-mteval", run=_corpora)
