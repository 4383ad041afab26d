"""wordfreq's Zipf frequencies for the words one corpus can ask about, without building
wordfreq's dictionary of a whole language.

``wordfreq.zipf_frequency`` turns a language's whole list into a dict on first use (0.1 s and
320,000 entries for English, 0.26 s and 620,000 for Arabic, in every process), where the
code-switching detector asks only about words of the corpus's sources. A ``ZipfTable`` looks up
the tokens of those texts in the packed list instead, one C-level set intersection per
frequency band. It reads the list's bands as UTF-8 bytes, never decoding its words into
strings, and intersects them with the tokens encoded alike: half the time of wordfreq's own
``read_cBpack`` (0.075 s against 0.15 s for Arabic), on the critical path of a small run's
start. It scores a word by wordfreq's own formula (its ``_word_frequency``: tokens
combined by 1/f = sum of 1/f_i, a digit sequence weighted by wordfreq's digit distribution,
rounded to three significant digits, then to 0.01 Zipf). A word with a token outside those
texts is handed to ``wordfreq.zipf_frequency`` itself, so every answer is wordfreq's;
tests/test_word_frequencies.py holds the two side by side on real text.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import sys
import threading
from collections.abc import Iterable
from types import ModuleType

#: wordfreq's floor: ``zipf_frequency``'s default minimum of 0 Zipf, as a frequency.
_MINIMUM = 1e-9
#: Distinct words one table remembers (a few MB at most).
_MAX_MEMO = 1 << 18

#: What one table has read: the tokens it asked about, the frequency of those the list has, and
#: its answers for given words (``read(words)``).
Read = tuple[frozenset[str], dict[str, float], dict[str, float]]


class ZipfTable:
    """Zipf frequencies in one language, exact for any word, fast for words of ``texts``; the
    list is read by ``load()`` (the scorer process prepares so) or else when the first word is
    asked (an output in the target's own script asks about none)."""

    def __init__(self, language: str, texts: Iterable[str]) -> None:
        self.language = language
        self._texts: list[str] | None = list(texts)
        self._asked: frozenset[str] = frozenset()
        self._freqs: dict[str, float] = {}
        self._memo: dict[str, float] = {}
        self._adopted = False

    def _read(self, texts: list[str]) -> None:
        """The frequencies of the tokens of ``texts``: one pass over the packed list."""
        wordfreq = imported_wordfreq()
        from wordfreq.language_info import get_language_info
        from wordfreq.numbers import smash_numbers
        from wordfreq.tokens import lossy_tokenize

        wanted: set[str] = set()
        if get_language_info(self.language)["tokenizer"] != "jieba":  # its words need a factor
            for text in texts:
                wanted.update(smash_numbers(t) for t in lossy_tokenize(text, self.language))
        self._asked = frozenset(wanted)
        if not wanted:
            return
        encoded = {word.encode("utf-8"): word for word in wanted}
        for index, band in enumerate(packed_bands(wordfreq.available_languages()[self.language])):
            found = encoded.keys() & band
            if found:
                freq = wordfreq.cB_to_freq(-index)
                self._freqs.update((encoded[key], freq) for key in found)

    def load(self) -> None:
        """Read the list now (once), and import wordfreq, whose tokenizer a word asked about
        needs: where a word will be asked about soon, the scorer process does it while the
        method's runner boots instead of on the first word. A table that adopted another's
        read holds the answers for the words it was read for; wordfreq is imported at the
        first other word."""
        if self._texts is not None:
            texts, self._texts = self._texts, None
            self._read(texts)
        if not self._adopted:
            imported_wordfreq()

    def read(self, words: Iterable[str] = ()) -> Read:
        """What ``load()`` read, and the answer for each of ``words``, to be adopted by a
        table in another process."""
        self.load()
        answers = {word: self.zipf(word) for word in words}
        return self._asked, self._freqs, answers

    def adopt(self, read: Read) -> None:
        """Take what a table of the same language read (``read()``) instead of reading. Any
        token set gives exact answers: a token it did not ask about is asked of wordfreq."""
        self._texts = None
        self._asked, self._freqs, answers = read
        self._memo.update(answers)
        self._adopted = True

    def zipf(self, word: str) -> float:
        """``wordfreq.zipf_frequency(word, language)``, memoized (a corpus repeats its words)."""
        value = self._memo.get(word)
        if value is None:
            self.load()
            value = self._computed(word)
            if len(self._memo) < _MAX_MEMO:
                self._memo[word] = value
        return value

    def _computed(self, word: str) -> float:
        wordfreq = imported_wordfreq()
        from wordfreq.numbers import digit_freq, smash_numbers
        from wordfreq.tokens import lossy_tokenize

        tokens = lossy_tokenize(word, self.language)
        smashed = [smash_numbers(token) for token in tokens]
        if any(s not in self._asked for s in smashed):
            return float(wordfreq.zipf_frequency(word, self.language))
        if not tokens or any(s not in self._freqs for s in smashed):
            return _to_zipf(_MINIMUM)
        one_over = 0.0
        for token, key in zip(tokens, smashed, strict=True):
            freq = self._freqs[key]
            if key != token:
                freq *= digit_freq(token)
            one_over += 1.0 / freq
        unrounded = max(1.0 / one_over, _MINIMUM)
        return _to_zipf(round(unrounded, math.floor(-math.log(unrounded, 10)) + 3))


def imported_wordfreq() -> ModuleType:
    """wordfreq, imported the first time from a thread of its own: its import asks
    ``inspect.stack()`` for its folder (the ``locate`` package), which reads the source of
    every frame below it: 25 ms under pytest's stack, not 1 ms in a new thread's."""
    if "wordfreq" not in sys.modules:
        thread = threading.Thread(target=_import_wordfreq_quietly)
        thread.start()
        thread.join()
    return importlib.import_module("wordfreq")  # a failed import raises here, not in the thread


def _import_wordfreq_quietly() -> None:
    with contextlib.suppress(Exception):
        importlib.import_module("wordfreq")


def packed_bands(path: str) -> list[list[bytes]]:
    """The frequency bands of a wordfreq cBpack file (gzipped msgpack: a header, then band
    ``i`` holding the words of -i centibels), each word as its UTF-8 bytes."""
    import gzip

    import msgpack

    with open(path, "rb") as packed:
        data = msgpack.unpackb(gzip.decompress(packed.read()), raw=True)
    header = data[0] if isinstance(data, list) and data else None
    if (
        not isinstance(header, dict)
        or header.get(b"format") != b"cB"
        or header.get(b"version") != 1
    ):
        raise ValueError(f"{path}: not a wordfreq cBpack file (header {header!r})")
    return data[1:]  # type: ignore[no-any-return]


def _to_zipf(freq: float) -> float:
    return round(math.log(freq, 10) + 9, 2)
