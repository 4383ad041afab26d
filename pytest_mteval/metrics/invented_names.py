"""Names in a translation that come from neither the source nor the reference.

A name here is a capitalized word that does not start a sentence. It is *new* when the source
and the reference do not contain it, the corpus's references never write it in lower case
(then it is a common word), and it does not look like a capitalized word of the source or
the reference: names are inflected and transliterated ("Meriniň" for Mary, "Garwardyň" for
Harvard), so a name counts as known when its beginning spells at least half like a known
one. The check only makes sense where the target language capitalizes names but not its
nouns; ``name_checks_apply`` tells from the corpus's references (German-like targets, where
20 % or more of the words inside sentences are capitalized, and uncased scripts are skipped).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache

import regex

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.text import TOKEN, folded_words, nfc, words
from pytest_mteval.metrics.writing_systems import dominant_system

NAME_LIKENESS = 0.5
NOUN_CAPITALIZING = 0.20
_STEM_END = regex.compile(r"['’\-‐‑]")
#: What may end a sentence; a word after one of these (and any quotes or brackets) starts one.
_SENTENCE_END = frozenset(".!?…:;。！？።፧؟\n-–—•")
_OPENERS = frozenset(" \t\"'«»“”„‘’‚(「『[¿¡")


@lru_cache(maxsize=1 << 16)
def plain(word: str) -> str:
    """Case-folded, without accents: the form in which spellings are compared (memoized:
    the same words recur across a corpus)."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def capitalized_inside_sentences(text: str) -> list[str]:
    """Words starting with a capital letter that do not start a sentence."""
    text = nfc(text)
    found = []
    for match in TOKEN.finditer(text):
        word = match.group()
        if word[0].isupper() and _previous_mark(text, match.start()) not in _SENTENCE_END:
            found.append(word)
    return found


def _previous_mark(text: str, start: int) -> str:
    """The character before ``start``, skipping spaces, quotes and opening brackets; a line
    break at the start of the text (which starts a sentence)."""
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return text[i] if i >= 0 else "\n"


def looks_like(word: str, name: str) -> bool:
    """Whether ``word`` begins like ``name`` (both plain): an inflected or transliterated form."""
    if len(name) < 2:
        return False
    for size in range(len(name) - 1, len(name) + 3):
        matcher = SequenceMatcher(None, word[:size], name, autojunk=False)
        if matcher.quick_ratio() >= NAME_LIKENESS and matcher.ratio() >= NAME_LIKENESS:
            return True
    return False


def new_names(entry: Entry, predicted: str, lower_case_vocabulary: frozenset[str]) -> list[str]:
    """The names in ``predicted`` that the source and the reference do not account for."""
    known = folded_words(entry.source) | folded_words(entry.reference)
    both = f"{entry.source}\n{entry.reference}"
    known_names = {plain(w) for w in words(both) if w[0].isupper()}
    found = []
    for word in capitalized_inside_sentences(predicted):
        folded = word.casefold()
        if (
            sum(c.isalpha() for c in _STEM_END.split(word)[0]) >= 2  # not "I'm", "L'Oréal"
            and folded not in known
            and folded not in lower_case_vocabulary
            and not any(looks_like(plain(word), name) for name in known_names)
        ):
            found.append(word)
    return list(dict.fromkeys(found))


def name_checks_apply(references: Iterable[str], sources: Iterable[str] | None = None) -> bool:
    """Whether the references capitalize some words inside sentences, but not most nouns,
    and (when ``sources`` are given) the sources are written in the references' script.

    Across scripts a name cannot be traced to the source: on WMT21 TED zh->en every "new
    name" (183 flags: "United States", "World Health Organization", "British") was a name the
    Chinese source holds in Chinese characters and the reference happened to word otherwise.
    """
    references = list(references)
    if sources is not None and dominant_system(sources) != dominant_system(references):
        return False
    inside = total = 0
    for reference in references:
        total += max(0, len(words(reference)) - 1)
        inside += len(capitalized_inside_sentences(reference))
    return total > 0 and 0 < inside / total < NOUN_CAPITALIZING


def lower_case_vocabulary(corpus: Corpus) -> frozenset[str]:
    """Words the references write in lower case somewhere (case-folded): common words."""
    found: set[str] = set()
    for entry in corpus.entries:
        for text in (entry.reference, *entry.variants):
            found |= {w.casefold() for w in words(text) if w == w.lower() and w != w.upper()}
    return frozenset(found)
