"""Outputs made only of the corpus's sources: what a method gives without translating.

An output has *no text of its own* when it holds no word, or only words of the corpus's
sources that the reference does not use, the last one perhaps cut short: a copied, cut or
upper-cased source, its first word, another entry's source. MQM calls that a non-translation,
and code-switching counts it as untranslated as a whole.

Such an output that is not even its whole source (case aside) is a *mangled copy*: cut short,
its first word, repeated, another entry's. MQM adds an omission or an addition to the
non-translation, and hallucination counts it. Without this, a copy cut or repeated scored above
the whole copy (the identity floor) wherever chrF++ rewards it: a cut word that shares a letter
with a one-word reference ('a' of 'and' against 'êkwa'), or a repeated source that matches more
of a longer reference's characters, with every other ingredient already at its worst (issue 22).

Neither fires on an output that uses a word of its reference, so neither fires on the human
translations of the shipped corpora replayed as outputs.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.text import folded_words, words


def no_text_of_its_own(
    predicted_words: Sequence[str], entry: Entry, source_vocabulary: frozenset[str]
) -> bool:
    """Whether the output holds nothing but words of the corpus's sources (``source_vocabulary``,
    case-folded) that the reference does not use, the last one perhaps cut short."""
    if not words(entry.source):
        return False
    return _only_words_of(source_vocabulary, predicted_words, entry) is not None


def mangled_copy(predicted_words: Sequence[str], entry: Entry) -> bool:
    """Whether the output holds nothing but words of its own source that the reference does
    not use (the last perhaps cut short), and not the whole source: a part of it, or a
    repetition (words compared case-folded, in order). Another entry's source is left to the
    checks across entries; a word of the corpus's other sources ("a", "men") is too often a
    word of the target as well."""
    whole = [w.casefold() for w in words(entry.source)]
    copied = _only_words_of(frozenset(whole), predicted_words, entry)
    return bool(predicted_words) and copied is not None and copied != whole


def _only_words_of(
    known: frozenset[str], predicted_words: Sequence[str], entry: Entry
) -> list[str] | None:
    """The output's words, case-folded, if all are ``known`` words that the reference does
    not use, the last perhaps a word of the source cut short (then dropped); else None."""
    reference = folded_words(entry.reference)
    folded = [w.casefold() for w in predicted_words]
    last = folded[-1] if folded else ""
    cut = last not in known and last not in reference
    if last and cut and any(w.startswith(last) for w in folded_words(entry.source)):
        folded.pop()  # cut inside a word of the source
    if any(w in reference or w not in known for w in folded):
        return None
    return folded
