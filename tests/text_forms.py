"""Where a secret text may hide in a file: as it is, JSON-escaped either way, HTML-escaped."""

from __future__ import annotations

import html
import json


def text_forms(text: str) -> set[str]:
    return {
        text,
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        html.escape(text),
    }


def texts_found(texts: set[str], data: str) -> set[str]:
    """The texts of ``texts`` that stand in ``data`` in any of their forms."""
    return {text for text in texts if any(form in data for form in text_forms(text))}
