"""Words the target language accepts beyond a corpus's references, for code-switching: the
language resources' lexicon (a word list or a Hunspell dictionary) and the glossary's target
terms, with the short endings an inflected form may add to a lexicon word."""

from __future__ import annotations

from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.invented_names import plain
from pytest_mteval.metrics.resources import corpus_resources, lexicon_words
from pytest_mteval.metrics.terminology import load_glossary
from pytest_mteval.metrics.text import words

MIN_LETTERS = 4
#: Letters an inflected form may add to a lexicon word of at least LONG_STEM letters
#: ("Experimente"); shorter stems take one letter ("Songs"), since a short stem plus a
#: longer ending is too often another language's word ("real" + "ly").
MAX_ENDING = 3
LONG_STEM = 6


def in_lexicon(word: str, lexicon: frozenset[str]) -> bool:
    """Whether ``word`` (plain) is a lexicon word, or one plus a short ending."""
    if not lexicon:
        return False
    if word in lexicon:
        return True
    for size in range(len(word) - 1, MIN_LETTERS - 1, -1):
        ending = len(word) - size
        if ending > (MAX_ENDING if size >= LONG_STEM else 1):
            break
        if word[:size] in lexicon:
            return True
    return False


def target_lexicon(context: MetricContext) -> frozenset[str]:
    """Words the run knows the target language accepts beyond its references: the
    resources' lexicon and the glossary's target terms, plain (case-folded, no accents)."""
    found: set[str] = set()
    resources = corpus_resources(context.corpus)
    if resources is not None and resources.lexicon is not None:
        found |= {plain(w) for w in lexicon_words(resources.lexicon)}
    if context.corpus.dataset.glossary is not None:
        for targets in load_glossary(context.corpus).values():
            found |= {plain(w) for term in targets for w in words(term)}
    return frozenset(found)
