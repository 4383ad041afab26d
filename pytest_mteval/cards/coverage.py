"""A card's ``coverage`` block: did the run evaluate the whole corpus? A partial run (``-k``,
``--lf``, ``-x``, a filter) says so on its card, and is never taken as a baseline or as the
latest run to compare with (``history/index.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_mteval.cards.card_model import RunCard


def coverage(entries_run: int, entries_in_corpus: int, filters: Sequence[str]) -> dict[str, Any]:
    """The ``coverage`` field of a card: did this run evaluate the whole corpus?"""
    reasons = [f"filtered by {name}" for name in filters]
    if entries_run < entries_in_corpus:
        reasons.append(
            f"{entries_run} of {entries_in_corpus} entries ran (-k, --lf, -x or deselection)"
        )
    return {
        "complete": not reasons,
        "entries_run": entries_run,
        "entries_in_corpus": entries_in_corpus,
        "reasons": reasons,
    }


def is_partial(card: RunCard) -> bool:
    """A run of part of the corpus, or one stopped early (``-x``, Ctrl-C: the card's own
    ``complete`` is false, though every entry has a row, the unrun ones as errors)."""
    return card.complete is False or (card.coverage is not None and card.coverage.complete is False)
