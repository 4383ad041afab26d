"""Whether a language's own word data knows a word: the frequency lists that ``wordfreq`` ships
(a dependency, so that a run scores the same wherever it runs: 42 lists, of which 40 are used
here; about 67 MB installed with what it needs).

Why a comparison and not a threshold: the web text behind every list holds some of the other
language, English above all, so "the" has a German frequency too (Zipf 5.6, against 7.7 in
English) and "really" 3.4 (6.0). A loanword is used in the target about as often as in its
language of origin ("Song": German 4.7, English 5.3; "Jury" 4.1 and 4.5), a word that is only
there as quoted foreign text much less. So a word is known to the target language when the
target uses it at least a tenth as often as the source language does (``MARGIN``, one Zipf
unit); when the source language has no list, when it occurs once per million target words.

A word the source language's data does not know either (below ``SOURCE_WORD_ZIPF``) is not a
source-language word: a scientific name, a coinage, a rare name or a typo, which the
detector must not call untranslated text.

An acronym (two or more letters, all capitals: "DOJ", "GOP", "NJ") is judged by the same
comparison although it is short and written like a name: the target language writes the
acronyms it has borrowed ("USA", "EU", "FBI", "TV" are as frequent in German as in English),
and one it does not use stands for words of the source that a translation expands or
replaces ("DOJ" is "US-Justizministerium"). Joined to a word by a hyphen, as languages that
write compounds as one word join it ("GOP-Kontrolle"), it is still that acronym.

Languages whose lists need a separate word segmenter (Chinese, Japanese) are left to the
corpus-based rules.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from pytest_mteval.languages import canonical
from pytest_mteval.metrics.word_frequencies import Read, ZipfTable

MARGIN = 1.0
KNOWN_ZIPF = 3.0
SOURCE_WORD_ZIPF = 1.0
#: Once per 3 million words of the target's data: a name it writes, not stray foreign text.
NAME_ZIPF = 2.5
#: Lists that need an optional segmenter (jieba, MeCab) to look up a word.
_NEEDS_SEGMENTER = frozenset({"zh", "ja"})


class WordData:
    """The source and target languages' frequency lists, for one language pair."""

    def __init__(
        self,
        zipf: Callable[[str, str], float],
        source: str | None,
        target: str,
        load: Callable[[], None] = lambda: None,
    ) -> None:
        self._zipf = zipf
        self.source = source
        self.target = target
        self.load = load  # reads the lists now rather than at the first word asked about

    def target_knows(self, word: str) -> bool:
        """Whether the target language uses ``word`` as its own (see the module docstring)."""
        in_target = self._zipf(word, self.target)
        if self.source is None:
            return in_target >= KNOWN_ZIPF
        return in_target > 0 and in_target >= self._zipf(word, self.source) - MARGIN

    def target_writes_name(self, word: str) -> bool:
        """Whether the target's data writes ``word`` often enough to be a name it shares
        ("Ottawa"), whatever the source language's data says."""
        return self._zipf(word, self.target) >= NAME_ZIPF

    def foreign_to_source(self, word: str) -> bool:
        """Whether the source language's data hardly knows ``word`` (so it is not one of its
        words); False when the source language has no list."""
        return self.source is not None and self._zipf(word, self.source) < SOURCE_WORD_ZIPF

    def unknown_acronym(self, word: str) -> bool:
        """Whether ``word`` is an acronym (see :func:`is_acronym`) of the source language's
        data that the target's data does not use as its own."""
        return is_acronym(word) and not self.target_knows(word) and not self.foreign_to_source(word)


def is_acronym(word: str) -> bool:
    """Two or more letters, every one a capital ("NJ", "DOJ"; not "Dr", "I")."""
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def word_data(
    source_language: str,
    target_language: str,
    texts: Iterable[str] = (),
    prefetched: Callable[[], Mapping[str, Read]] | None = None,
) -> WordData | None:
    """The pair's word data, or None when wordfreq has no list for the target. ``texts`` are
    those whose words will be asked about (the corpus's sources): their frequencies are read
    once (``word_frequencies``); any other word is still answered, by wordfreq itself.
    ``prefetched``: what tables of these languages read elsewhere (plugin/word_prefetch.py),
    adopted instead of reading."""
    tables = frequency_tables(source_language, target_language, texts)
    if tables is None:
        return None
    for language, read in (prefetched() if prefetched else {}).items():
        if language in tables:
            tables[language].adopt(read)
    target, source = canonical(target_language), canonical(source_language)
    known = source if source in tables else None

    def load() -> None:
        for table in tables.values():
            table.load()

    return WordData(lambda word, language: tables[language].zipf(word), known, target, load)


def frequency_tables(
    source_language: str, target_language: str, texts: Iterable[str] = ()
) -> dict[str, ZipfTable] | None:
    """One table for the target and one for the source language where wordfreq has their
    lists, over ``texts``; None when it has none for the target."""
    covered = _covered()
    target = canonical(target_language)
    if target not in covered:
        return None
    source = canonical(source_language)
    texts = list(dict.fromkeys(texts))
    return {language: ZipfTable(language, texts) for language in {target, source} & covered}


@lru_cache(maxsize=1)
def _covered() -> frozenset[str]:
    """The languages of wordfreq's lists (``wordfreq.available_languages()``, whose names say
    them: ``large_en.msgpack.gz``), read from its data folder without importing it: wordfreq
    and langcodes cost 0.2 s, which a run asking about no word does not pay."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    names = (path.name.split(".")[0].split("_") for path in folder.glob("*.msgpack.gz"))
    return frozenset(parts[1] for parts in names if len(parts) == 2) - _NEEDS_SEGMENTER


_HYPHEN = re.compile(r"[-\u2010\u2011]")


def acronym_parts(words: Iterable[str]) -> list[str]:
    """The acronyms that hyphens join to other words ("GOP" of "GOP-Kontrolle")."""
    return [
        part
        for word in words
        if _HYPHEN.search(word)
        for part in _HYPHEN.split(word)
        if is_acronym(part)
    ]
