"""Text from files, made safe to print: the one place control characters are replaced.

A prediction or a card's string can hold escape sequences that a terminal obeys (a window
title, a line erase, an OSC 52 clipboard write) or that reorder what a reader sees (Unicode
bidirectional overrides). Everything printed for a person passes through :func:`printable`,
which writes each such character as its ``\\uXXXX`` escape: visible, and still valid inside JSON.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["printable"]

#: C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates.
_UNSAFE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: What a multi-line text keeps: line feeds and tabs (and CR before LF).
_KEPT: Final = frozenset({"\n", "\t"})


def printable(text: str, lines: bool = True) -> str:
    """``text`` with every unsafe character escaped; ``lines`` keeps line feeds and tabs (a
    CR only before a LF), else the text stays on one line."""
    if not _UNSAFE.search(text):
        return text
    kept = _KEPT if lines else frozenset()

    def escaped(match: re.Match[str]) -> str:
        char = match.group()
        if char in kept:
            return char
        if char == "\r" and lines and text.startswith("\n", match.end()):
            return char
        return f"\\u{ord(char):04x}"

    return _UNSAFE.sub(escaped, text)
