"""Whether an output is written in the target language at all.

SCORING.md counts output in the wrong language among the degenerate outputs. The check uses
the data the project ships: wordfreq's small word lists (every word of Zipf 3 or more in each
of its languages), the writing systems, and the corpus's own references where wordfreq has
no list for the target (Plains Cree, Quechua, Northern Sami...).

The rule, fixed before it was measured (docs/VALIDITY.md has the figures):

- An output is judged on its words (``text.words``), case-folded, without the names: words
  capitalized inside a sentence. With fewer than ``MIN_WORDS`` of them it is undecided.
- Most of its letters in another writing system than the corpus's references': wrong
  language (wrong script), unless the entry's own reference is written in it (then it is
  taken as right: a quotation or a name kept in its script).
- Other languages are those with a list in the target's writing system.
- Target with a list: a word scores its Zipf frequency in each list, a word a list lacks
  counts at the list's cut-off (the most it could be there, so differences are never
  overstated). The output is in another language when that language's mean score beats the
  target's by ``MARGIN`` (ten times as frequent, word for word, as ``word_data.MARGIN``),
  or when fewer than ``KNOWN_SHARE`` of its words are in the target's list at all.
- Target without a list: a word is the target's when another entry's reference or variant
  uses it. The output is in a listed language when ``KNOWN_SHARE`` of its words or more are
  in that list and are not the target's.
"""

from __future__ import annotations

import importlib.util
import math
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np
import regex
from numpy.typing import NDArray

from pytest_mteval.languages import canonical
from pytest_mteval.metrics.invented_names import capitalized_inside_sentences
from pytest_mteval.metrics.text import folded_words, words
from pytest_mteval.metrics.word_frequencies import packed_bands
from pytest_mteval.metrics.writing_systems import dominant_system

#: Words (names left out) an output needs before its language is judged.
MIN_WORDS: Final = 4
#: Zipf units by which another language must explain the words better than the target.
MARGIN: Final = 1.0
#: Where wordfreq cuts its small lists: a word below it is not listed.
LIST_FLOOR: Final = 3.0
#: Share of the words a language must hold for the output to be counted as in it.
KNOWN_SHARE: Final = 0.5
#: Lists whose words need a segmenter (jieba, MeCab): their words are not a text's words.
_NEEDS_SEGMENTER: Final = frozenset({"zh", "ja", "ko"})
#: Languages wordfreq lists under a macrolanguage's or a standard's name.
_LISTED_AS: Final = {"bs": "sh", "hr": "sh", "sr": "sh", "hbs": "sh", "no": "nb", "tl": "fil"}
#: Bytes of a list's msgpack header ("format": "cB", "version": 1...), ASCII to skip.
_HEADER_BYTES: Final = 64
_JOINER = regex.compile(r"['’\-‐‑·]")


@dataclass(frozen=True)
class LanguageVerdict:
    """One output's language, as far as the data can tell."""

    #: The words judged (names left out); fewer than ``MIN_WORDS``: undecided.
    words: int
    #: True when the output is judged to be in another language than the target.
    wrong: bool = False
    #: What the output reads as instead ("es", "script Cyrillic", "not fr").
    reads_as: str = ""

    @property
    def decided(self) -> bool:
        return self.words >= MIN_WORDS


def judged_words(text: str) -> list[str]:
    """The words whose language counts: case-folded, names left out."""
    names = set(capitalized_inside_sentences(text))
    return [w.casefold() for w in words(text) if w not in names]


def list_language(code: str) -> str | None:
    """The wordfreq list that holds ``code``'s words ("fra" -> "fr", "bos" -> "sh"); None
    when wordfreq has none."""
    lists = small_lists()
    found = canonical(code)
    if found not in lists and len(found) == 3:
        import langcodes  # only for ISO 639-3 codes the project's table lacks ("pol")

        found = langcodes.standardize_tag(found, macro=True)
    found = _LISTED_AS.get(found, found)
    return found if found in lists else None


@lru_cache(maxsize=1)
def small_lists() -> dict[str, Path]:
    """wordfreq's small lists by language, found in its data folder without importing it."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return {}
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    found = {
        path.name.split(".")[0].removeprefix("small_"): path for path in folder.glob("small_*")
    }
    return {language: path for language, path in sorted(found.items()) if "_" not in language}


@lru_cache(maxsize=64)
def list_system(language: str) -> str | None:
    """The writing system of a list's most frequent words, from its first few kilobytes: a
    list in another system than the target's cannot hold an output in the target's."""
    with small_lists()[language].open("rb") as packed:
        head = zlib.decompressobj(wbits=31).decompress(packed.read(4096), 8192)
    return dominant_system((head[_HEADER_BYTES:].decode("utf-8", "ignore"),))


def zipf_of(encoded: dict[bytes, str], path: Path) -> dict[str, float]:
    """The Zipf frequency of each word asked (``encoded``: UTF-8 -> word) that the list at
    ``path`` holds."""
    wanted = set(encoded)  # once: ``keys() & band`` would copy the keys for every band
    found: dict[str, float] = {}
    for index, band in enumerate(packed_bands(str(path))):
        for key in wanted.intersection(band):
            found[encoded[key]] = 9.0 - index / 100.0
    return found


def wrong_language(
    outputs: Sequence[str | None],
    references: Sequence[Sequence[str]],
    target_language: str,
) -> list[LanguageVerdict]:
    """One verdict per output; ``references[i]`` are entry i's reference and variants."""
    judged = [judged_words(o) if o else [] for o in outputs]
    verdicts = [LanguageVerdict(len(w)) for w in judged]
    target_system = dominant_system(r for refs in references for r in refs)
    open_ = []
    for i, output in enumerate(outputs):
        if not output or not verdicts[i].decided:
            continue
        system = dominant_system((output,))
        if not target_system or not system or system == target_system:
            open_.append(i)
        elif system not in {dominant_system((r,)) for r in references[i]}:
            verdicts[i] = LanguageVerdict(len(judged[i]), True, f"script {system}")
        # else: written like the entry's own reference (a quotation kept in its script)
    if not open_:
        return verdicts
    languages = [
        lang
        for lang in small_lists()
        if lang not in _NEEDS_SEGMENTER and target_system in (None, list_system(lang))
    ]
    found = list_language(target_language)
    target = found if found in languages else None  # a list in the references' system
    if not languages:
        return verdicts  # no list in the target's writing system: nothing to compare with
    vocabulary = list(dict.fromkeys(w for i in open_ for w in judged[i]))
    position = {word: n for n, word in enumerate(vocabulary)}
    zipf = _zipf_matrix(vocabulary, languages, joined=target is not None)
    if target is not None:
        listed = _ListedTarget(zipf, languages, target)
        for i in open_:
            verdicts[i] = listed.verdict([position[w] for w in judged[i]])
    else:
        unlisted = _UnlistedTarget(zipf, languages, references)
        for i in open_:
            verdicts[i] = unlisted.verdict(judged[i], [position[w] for w in judged[i]], i)
    return verdicts


def _zipf_matrix(vocabulary: list[str], languages: list[str], joined: bool) -> NDArray[np.float64]:
    """Each word's Zipf in each list (a row per word, a column per language), NaN if absent."""
    joined_parts = {
        w: [p for p in _JOINER.split(w) if p] for w in vocabulary if joined and _JOINER.search(w)
    }
    asked = set(vocabulary).union(*joined_parts.values())
    encoded = {word.encode("utf-8"): word for word in asked}
    lists = small_lists()
    matrix = np.full((len(vocabulary), len(languages)), math.nan)
    row_of = {word: row for row, word in enumerate(vocabulary)}
    joined_words = [(row_of[w], ps) for w, ps in joined_parts.items() if len(ps) > 1]
    for column, language in enumerate(languages):
        table = zipf_of(encoded, lists[language])
        for word, value in table.items():
            if word in row_of:
                matrix[row_of[word], column] = value
        for row, word_parts in joined_words:
            if math.isnan(matrix[row, column]) and all(p in table for p in word_parts):
                matrix[row, column] = min(table[p] for p in word_parts)
    return matrix


class _ListedTarget:
    """The rule for a target that has a wordfreq list (see the module docstring)."""

    def __init__(self, zipf: NDArray[np.float64], languages: list[str], target: str) -> None:
        self.known = ~np.isnan(zipf)
        self.scores = np.where(self.known, np.maximum(np.nan_to_num(zipf), LIST_FLOOR), LIST_FLOOR)
        self.languages = languages
        self.target = languages.index(target)

    def verdict(self, rows: list[int]) -> LanguageVerdict:
        means = self.scores[rows].mean(axis=0)
        target_mean = means[self.target]
        means[self.target] = -math.inf
        best = int(np.argmax(means))
        if means[best] - target_mean >= MARGIN:
            return LanguageVerdict(len(rows), True, self.languages[best])
        if self.known[rows, self.target].mean() < KNOWN_SHARE:
            return LanguageVerdict(len(rows), True, f"not {self.languages[self.target]}")
        return LanguageVerdict(len(rows))


class _UnlistedTarget:
    """The rule for a target without a list: the corpus's other references stand in. A word
    counts for a list only whole: where the target has no list, an apostrophe may be a
    letter (Quechua "ch'ulu"), and the parts it would split into mean nothing."""

    def __init__(
        self,
        zipf: NDArray[np.float64],
        languages: list[str],
        references: Sequence[Sequence[str]],
    ) -> None:
        self.known = ~np.isnan(zipf)
        self.languages = languages
        self.per_entry = [
            frozenset().union(*(folded_words(r) for r in refs)) for refs in references
        ]
        self.entries_using: Counter[str] = Counter(w for found in self.per_entry for w in found)

    def is_target_word(self, word: str, index: int) -> bool:
        """Another entry's reference or variant uses the word (its own does not count)."""
        return self.entries_using[word] - (word in self.per_entry[index]) > 0

    def verdict(self, judged: list[str], rows: list[int], index: int) -> LanguageVerdict:
        foreign = [
            r for w, r in zip(judged, rows, strict=True) if not self.is_target_word(w, index)
        ]
        held = self.known[foreign].sum(axis=0) if foreign else np.zeros(len(self.languages))
        best = int(np.argmax(held))
        if held[best] / len(judged) >= KNOWN_SHARE:
            return LanguageVerdict(len(judged), True, self.languages[best])
        return LanguageVerdict(len(judged))
