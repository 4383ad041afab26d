"""Which writing system a letter, a word or a text is in.

Scripts are grouped into writing systems: Chinese, Japanese and Korean text mixes Han, kana and
hangul within one sentence, so those count as one system ("CJK"). Marks and punctuation have
no script of their own (Unicode's Common and Inherited) and are ignored. Letters of scripts not
listed here fall into "Other".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import regex

#: Scripts of living languages; the order only matters for speed (common ones first).
_SCRIPTS: tuple[str, ...] = (
    "Latin",
    "Cyrillic",
    "Arabic",
    "Han",
    "Hiragana",
    "Katakana",
    "Hangul",
    "Devanagari",
    "Ethiopic",
    "Greek",
    "Hebrew",
    "Bengali",
    "Thai",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Gujarati",
    "Gurmukhi",
    "Oriya",
    "Sinhala",
    "Myanmar",
    "Lao",
    "Khmer",
    "Georgian",
    "Armenian",
    "Tibetan",
    "Mongolian",
    "Thaana",
    "Syriac",
    "Nko",
    "Tifinagh",
    "Canadian_Aboriginal",
    "Cherokee",
    "Vai",
    "Adlam",
    "Ol_Chiki",
    "Javanese",
    "Balinese",
    "Sundanese",
    "Yi",
    "Bopomofo",
    "Tai_Le",
    "Bamum",
    "Osage",
    "Coptic",
    "Runic",
    "Ogham",
    "Samaritan",
    "Mandaic",
    "Lisu",
    "Chakma",
    "Tai_Tham",
    "Tai_Viet",
    "Buginese",
    "Batak",
    "Limbu",
)
_FAMILY: dict[str, str] = dict.fromkeys(
    ("Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"), "CJK"
)
_CLASSIFIER = regex.compile("|".join(rf"(?P<{name}>\p{{sc={name}}})" for name in _SCRIPTS))
_LETTER = regex.compile(r"\p{L}")


@lru_cache(maxsize=8192)
def system_of_char(char: str) -> str | None:
    """The writing system of one character; None for anything that is not a letter."""
    if not _LETTER.match(char):
        return None
    match = _CLASSIFIER.match(char)
    script = match.lastgroup if match and match.lastgroup else "Other"
    return _FAMILY.get(script, script)


def system_counts(text: str) -> Counter[str]:
    """How many letters of each writing system a text has."""
    return _systems_of(Counter(text))


def _systems_of(chars: Counter[str]) -> Counter[str]:
    """Character counts as counts per writing system: each distinct character is classified
    once (a corpus has a few hundred distinct characters and millions of characters)."""
    counts: Counter[str] = Counter()
    for char, count in chars.items():
        system = system_of_char(char)
        if system is not None:
            counts[system] += count
    return counts


def dominant_system(texts: Iterable[str]) -> str | None:
    """The writing system with the most letters over all texts (ties: alphabetical)."""
    chars: Counter[str] = Counter()
    for text in texts:
        chars.update(text)
    counts = _systems_of(chars)
    if not counts:
        return None
    return min(counts, key=lambda system: (-counts[system], system))


@lru_cache(maxsize=65536)
def system_of_word(word: str) -> str | None:
    """The writing system of most of a word's letters."""
    return dominant_system((word,))
