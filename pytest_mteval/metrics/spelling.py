"""Words that spell alike: difflib's ratio of two plain words (no accents, case folded) at
least ``SIMILAR``. Code-switching asks it whether a source word left in the output is a
target-language word spelt like one of the reference's (a cognate, an inflected form).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache

SIMILAR = 0.75


def similar_to_any(word: str, others: Iterable[str]) -> bool:
    """Whether ``word`` (already plain) spells like one of ``others`` (already plain)."""
    return any(_similar(word, other) for other in others)


def by_length(words: Iterable[str]) -> dict[int, list[str]]:
    """Words grouped by length, so a comparison visits only lengths that could be similar."""
    groups: dict[int, list[str]] = {}
    for word in words:
        groups.setdefault(len(word), []).append(word)
    return groups


def similar_to_any_of(word: str, groups: dict[int, list[str]]) -> bool:
    """:func:`similar_to_any` over words grouped by :func:`by_length`; lengths beyond half the
    word's length apart are never similar (the first bound of :func:`_similar`)."""
    reach = len(word) // 2
    return any(
        _similar(word, other)
        for length in range(len(word) - reach, len(word) + reach + 1)
        for other in groups.get(length, ())
    )


@lru_cache(maxsize=1 << 18)
def _similar(word: str, other: str) -> bool:
    """difflib's ratio >= SIMILAR, for a pair of words (memoized: words recur across a corpus).

    The length bound and the shared-letters bound checked first are upper bounds of ``ratio``
    (difflib's ``real_quick_ratio`` and ``quick_ratio``), so they change no verdict.
    """
    total = len(word) + len(other)
    if abs(len(other) - len(word)) > len(word) // 2 or not total:
        return False
    if 2.0 * min(len(word), len(other)) / total < SIMILAR:
        return False
    if 2.0 * (_letter_counts(word) & _letter_counts(other)).total() / total < SIMILAR:
        return False
    return SequenceMatcher(None, word, other, autojunk=False).ratio() >= SIMILAR


@lru_cache(maxsize=65536)
def _letter_counts(word: str) -> Counter[str]:
    return Counter(word)
