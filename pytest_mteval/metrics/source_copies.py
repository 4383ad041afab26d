"""Outputs made only of the corpus's sources: what a method gives without translating.

An output has *no text of its own* when it holds no word, or only words of the corpus's
sources that the reference does not use, the last one perhaps one of them cut short: a copied,
cut or upper-cased source, its first word, another entry's source, cut or not. MQM calls that
a non-translation, and code-switching counts it as untranslated as a whole.

A *mangled copy* is a copy that is not even the whole source (case aside), so MQM adds an
omission or an addition to the non-translation, and hallucination counts it:

- a part of the source (cut short, its first word): only words of its own source that the
  reference does not use, and not all of them in order;
- a repeated copy: a stretch of the source's words said twice or more back to back, and
  nothing else, where the reference does not repeat it (names the reference keeps included).

Without it, a copy cut or repeated scored above the whole copy (the identity floor) wherever
chrF++ rewards it, every other ingredient being at its worst already (issue 22): a cut word
that shares a letter with a one-word reference ('a' of 'and' against 'êkwa'), a repeated
source that matches more of a longer reference's characters (chrF++ weighs recall twice).
An output that is its reference never counts, so neither check fires on the human
translations of the shipped corpora replayed as outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.text import folded_words, words


def no_text_of_its_own(
    predicted_words: Sequence[str], entry: Entry, source_vocabulary: frozenset[str]
) -> bool:
    """Whether the output holds nothing but words of the corpus's sources (``source_vocabulary``,
    case-folded) that the reference does not use, the last one perhaps cut short."""
    if not words(entry.source):
        return False
    beginnings = _corpus_beginnings(source_vocabulary)
    return _only_words_of(source_vocabulary, predicted_words, entry, beginnings) is not None


def mangled_copy(predicted_words: Sequence[str], entry: Entry) -> bool:
    """Whether the output is a part of its source or a repetition of it (words compared
    case-folded, in order). Another entry's source is left to the checks across entries: a
    word of the corpus's other sources ("a", "men") is too often a word of the target too."""
    whole = [w.casefold() for w in words(entry.source)]
    copied = _only_words_of(frozenset(whole), predicted_words, entry)
    if predicted_words and copied is not None and copied != whole:
        return True
    return repeated_copy([w.casefold() for w in predicted_words], whole, entry)


def repeated_copy(folded: list[str], source: list[str], entry: Entry) -> bool:
    """Whether ``folded`` (the output's words, case-folded) is a stretch of the ``source``'s
    words said at least twice back to back, and the reference does not repeat it."""
    if len(folded) < 2 or folded[0] not in source or folded == source:
        return False
    reference = [w.casefold() for w in words(entry.reference)]
    for size in range(1, len(folded) // 2 + 1):
        unit = folded[:size]
        if len(folded) % size == 0 and unit * (len(folded) // size) == folded:
            return _holds(source, unit) and not _holds(reference, unit * 2)
    return False


def _holds(sequence: list[str], part: list[str]) -> bool:
    """Whether ``part`` occurs in ``sequence`` as a stretch."""
    size = len(part)
    return any(sequence[i : i + size] == part for i in range(len(sequence) - size + 1))


@lru_cache(maxsize=4)
def _corpus_beginnings(known: frozenset[str]) -> frozenset[str]:
    """Every beginning of every ``known`` word, the word itself left out: made once per
    corpus, for its sources' words."""
    return frozenset(word[:end] for word in known for end in range(1, len(word)))


def _only_words_of(
    known: frozenset[str],
    predicted_words: Sequence[str],
    entry: Entry,
    beginnings: frozenset[str] = frozenset(),
) -> list[str] | None:
    """The output's words, case-folded, if all are ``known`` words that the reference does
    not use, the last perhaps a word cut short (then dropped): of the entry's own source, or,
    after other such words, a known one (one of ``beginnings``); else None."""
    reference = folded_words(entry.reference)
    folded = [w.casefold() for w in predicted_words]
    last = folded[-1] if folded else ""
    cut = last not in known and last not in reference
    # a fragment alone is a cut only of its own source's word; after copied words, of any
    if (
        last
        and cut
        and (
            any(word.startswith(last) for word in folded_words(entry.source))
            or (len(folded) > 1 and last in beginnings)
        )
    ):
        folded.pop()  # cut inside a known word
    if any(w in reference or w not in known for w in folded):
        return None
    return folded
