"""A card's ``coverage`` block: did the run evaluate all of what it set out to evaluate?

A run of whole segments (``--mteval-segment=gold_standard``) is complete over those segments:
spec §6.4 makes a gold-standard run the official score of its corpus version. Any other
filter, ``-k``, ``--lf`` or ``-x`` makes a partial run, which says so on its card. A run
that is not of the whole corpus is never taken as a baseline or as the latest run to compare
with (``history/index.py``): ``is_partial``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from pytest_mteval.cards.card_model import Coverage, RunCard

#: The filter that takes whole segments: it narrows what a run covers, not how completely.
SEGMENT_FILTER: Final = "--mteval-segment"


def coverage(
    segments_run: Iterable[str | None],
    entries_in_corpus: int,
    filters: Sequence[str],
    entries_in_segment: Callable[[str], int],
) -> dict[str, Any]:
    """The ``coverage`` field of a card: complete over each segment the run covered?

    ``segments_run`` holds each row's segment; ``entries_in_corpus`` the entries the run
    collected; ``entries_in_segment`` a segment's size before the run's filters.
    """
    named = list(segments_run)
    run = Counter(str(s) for s in named if s)
    others = [name for name in filters if name != SEGMENT_FILTER]
    reasons = [f"filtered by {name}" for name in others]
    entries_run = len(named)
    if entries_run < entries_in_corpus:
        reasons.append(
            f"{entries_run} of {entries_in_corpus} entries ran (-k, --lf, -x or deselection)"
        )
    per_segment = {}
    for segment in sorted(run):
        size = entries_in_segment(segment)
        per_segment[segment] = {
            "complete": not others and run[segment] >= size,
            "entries_run": run[segment],
            "entries_in_segment": size,
        }
    return {
        "complete": not reasons,
        "entries_run": entries_run,
        "entries_in_corpus": entries_in_corpus,
        "reasons": reasons,
        # beyond older cards: one segment's completeness, and whether no filter was given
        "whole_corpus": not reasons and SEGMENT_FILTER not in filters,
        "segments": per_segment,
    }


def segment_coverage(card_coverage: Coverage | None, segment: str) -> tuple[bool, str] | None:
    """Whether the run was complete over ``segment``, and why not; None when the card
    records no per-segment coverage (older cards)."""
    if card_coverage is None or segment not in card_coverage.segments:
        return None
    found = card_coverage.segments[segment]
    if found.complete:
        return True, ""
    filters = [r for r in card_coverage.reasons if r.startswith("filtered by")]
    ran = f"{found.entries_run} of {found.entries_in_segment} {segment} entries ran"
    return False, "; ".join([*filters, ran])


def is_partial(card: RunCard) -> bool:
    """Not a run of the whole corpus: part of it (``-k``, filters, one segment), or stopped
    early (``-x``, Ctrl-C: the card's own ``complete`` is false, though every entry has a
    row, the unrun ones as errors)."""
    found = card.coverage
    if card.complete is False or (found is not None and found.complete is False):
        return True
    return found is not None and found.whole_corpus is False
