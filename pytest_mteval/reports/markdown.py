"""Strings from cards, sweep files and paths as literal markdown: the leaderboard and the
sweep matrix go into pull requests and READMEs, where a name must not become HTML, a link,
emphasis, a code span or an extra table cell."""

from __future__ import annotations

import re
from typing import Final

#: What CommonMark and GFM read as markup inside a line: escapes, code, emphasis, links and
#: images, raw HTML and entities, table cells, strikethrough. An underscore between two
#: letters or digits cannot open or close emphasis (CommonMark's flanking rules), so
#: ``good_t0.3`` stays as it is.
_SPECIAL: Final = re.compile(r"([\\`*\[\]<>&|~]|(?<![^\W_])_|_(?![^\W_]))")


def md_text(text: str) -> str:
    """``text`` as literal markdown on one line: each special character backslash-escaped
    (CommonMark lets any ASCII punctuation be), line breaks made spaces."""
    return _SPECIAL.sub(r"\\\1", re.sub(r"[\r\n]+", " ", text))
