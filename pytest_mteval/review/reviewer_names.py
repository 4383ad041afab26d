"""Reviewer names compared as a reader sees them, so one person cannot count as two.

The threshold asks for two reviewers, and a reviewer is only a name in a CSV: "Alice",
"ALICE", "Al<zero-width space>ice" and "Аlice" (Cyrillic А) look the same to a person and must
count once. :func:`reviewer_key` and :func:`same_reviewer` are what names are compared by:
NFKC, invisible characters removed, case folded, then every character replaced by one
representative of its class of look-alikes (Unicode's confusables, UTS #39, as the
``confusable-homoglyphs`` package ships them), once with case folded first and once with
look-alikes folded first; two names are one reviewer when either form matches. Folding
errs towards merging: two real people whose names fold together are told so and pick
distinct pseudonyms.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from typing import Final

from confusable_homoglyphs import confusables

#: Characters that show nothing: zero-width space, joiners, word joiner, BOM, soft hyphen,
#: and the rest of Unicode's format (Cf) class below, plus the invisible marks and fillers.
_INVISIBLE: Final = frozenset(
    "\u00ad\u034f\u115f\u1160\u180b\u180c\u180d\u180e\u180f\u200b\u200c\u200d\u2060\u3164"
    "\ufeff\uffa0" + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
_SPACES: Final = re.compile(r"\s+")
#: Marks the library puts around right-to-left glyphs for display; not part of the glyph.
_DIRECTION_MARKS: Final = "\u200e\u200f"


def _visible(char: str) -> bool:
    if char in _INVISIBLE:
        return False
    return unicodedata.category(char) != "Cf" and not 0xE0100 <= ord(char) <= 0xE01EF


def _preference(char: str) -> tuple[bool, bool, bool, int]:
    """Which member stands for a class: an ASCII lowercase letter, then any ASCII letter,
    then any ASCII character, then the lowest code point (plain names keep their letters)."""
    ascii_char = char.isascii()
    return (
        not (ascii_char and char.islower()),
        not (ascii_char and char.isalpha()),
        not ascii_char,
        ord(char),
    )


@functools.cache
def _representatives() -> dict[str, str]:
    """Each confusable character -> its class's representative (classes joined through any
    shared look-alike, so the result does not depend on which member a name used)."""
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        parent.setdefault(char, char)
        while parent[char] != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    for char, glyphs in confusables.confusables_data.items():
        if len(char) != 1:
            continue
        for glyph in glyphs:
            other = str(glyph.get("c", "")).strip(_DIRECTION_MARKS)
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    keep, drop = sorted((a, b), key=_preference)
                    parent[drop] = keep
    return {char: find(char) for char in parent}


def _fold(text: str) -> str:
    table = _representatives()
    return "".join(table.get(char, char) for char in text)


def _finish(text: str) -> str:
    text = unicodedata.normalize("NFD", text).replace("i\u0307", "i")  # casefold("İ") = i + dot
    text = unicodedata.normalize("NFKC", _fold(text))
    return _SPACES.sub(" ", text).strip()


def reviewer_keys(name: str) -> tuple[str, str]:
    """The two forms a name is compared in: case folded before and after look-alikes are
    folded. Neither alone is enough: "Ivan"/"ivan" meet only in the first (``I`` looks like
    ``l``), "B0B"/"Bob" only in the second (``0`` looks like ``O``, not ``o``)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if _visible(c))
    return _finish(text.casefold()), _finish(_fold(text).casefold())


def reviewer_key(name: str) -> str:
    """The form a pseudonym is made from (the first of :func:`reviewer_keys`)."""
    return reviewer_keys(name)[0]


def same_reviewer(first: str, second: str) -> bool:
    """Whether two names are one reviewer: equal in either of their compared forms."""
    return any(a == b for a, b in zip(reviewer_keys(first), reviewer_keys(second), strict=True))


def pseudonym(name: str, parent_hash: str) -> str:
    """The id a validation record keeps instead of the name, salted with the parent card."""
    digest = hashlib.sha256(f"{parent_hash}:{reviewer_key(name)}".encode()).hexdigest()
    return f"r-{digest[:12]}"
