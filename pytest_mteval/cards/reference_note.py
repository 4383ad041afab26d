"""Which reference each compared run was scored against, and how it was judged (issue 15).

A corpus may say, in ``dataset.reference_quality``, that its references were judged worse than
machine outputs; the card carries that, and ``mteval compare`` repeats it, because a drop
measured against such a reference may be an improvement.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.corpus import describe_reference_quality


def card_reference(path: Path) -> str | None:
    """The card's reference line, or None (no such block, or not a run card at all: a
    reference-harness report records none)."""
    try:
        raw: Any = runcard.load(path)
    except runcard.RunCardError:
        return None
    dataset = raw.get("dataset") if isinstance(raw, dict) else None
    if not isinstance(dataset, dict):
        return None
    return describe_reference_quality(dataset.get("reference_quality"))


def reference_lines(sides: Sequence[tuple[str, Path]]) -> list[str]:
    """One line per side that names its reference; one line for all when they agree."""
    found = [(label, card_reference(path)) for label, path in sides]
    known = [(label, line) for label, line in found if line is not None]
    if not known:
        return []
    if len(known) == len(found) and len({line for _, line in known}) == 1:
        return [f"reference ({' and '.join(label for label, _ in known)}): {known[0][1]}"]
    return [f"reference ({label}): {line}" for label, line in known]
