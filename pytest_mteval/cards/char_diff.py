"""A character diff of two translations, computed once and rendered by whoever shows it
(the text of an inspection card, the HTML report)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Literal

Kind = Literal["kept", "removed", "added"]


def char_spans(old: str, new: str) -> list[tuple[Kind, str]]:
    """``old`` turned into ``new`` as consecutive spans: kept, removed (from ``old``) and
    added (from ``new``); a replacement is a removal followed by an addition."""
    spans: list[tuple[Kind, str]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            spans.append(("kept", old[i1:i2]))
            continue
        if i2 > i1:
            spans.append(("removed", old[i1:i2]))
        if j2 > j1:
            spans.append(("added", new[j1:j2]))
    return spans


def render(old: str, new: str, span: Callable[[Kind, str], str]) -> str:
    """The spans of :func:`char_spans`, each rendered by ``span`` and joined."""
    return "".join(span(kind, text) for kind, text in char_spans(old, new))
