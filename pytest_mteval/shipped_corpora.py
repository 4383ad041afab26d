"""The corpora shipped inside the package, usable from any repository as ``shipped:NAME``.

``--mteval-corpus=shipped:eng-fra-flores-devtest`` reads the installed copy, with its language
resources (the Plains Cree analyzer) beside it; ``mteval corpora`` lists names and paths.
"""

from __future__ import annotations

import json
from pathlib import Path

from pytest_mteval.errors import MtevalError

SHIPPED_CORPORA = Path(__file__).resolve().parent / "corpora"
PREFIX = "shipped:"


class ShippedCorpusError(MtevalError, ValueError):
    """An unknown shipped corpus name; the message lists the known ones."""


def shipped_corpus(name: str) -> Path:
    """The installed file of a shipped corpus."""
    path = SHIPPED_CORPORA / f"{name}.json"
    if "/" in name or "\\" in name or not path.is_file():
        known = ", ".join(n for n, *_ in shipped_corpora()) or "none"
        raise ShippedCorpusError(f"--mteval-corpus: no shipped corpus {name!r} (shipped: {known})")
    return path


def shipped_corpora() -> list[tuple[str, Path, str, int]]:
    """(name, path, language pair, entry count) of every shipped corpus."""
    found: list[tuple[str, Path, str, int]] = []
    for path in sorted(SHIPPED_CORPORA.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        dataset = raw.get("dataset") if isinstance(raw, dict) else None
        if not isinstance(dataset, dict):
            continue
        pair = f"{dataset.get('source_language')}>{dataset.get('target_language')}"
        found.append((path.stem, path, pair, len(raw.get("entries") or [])))
    return found
