"""Keeping the API key out of what the upstream answers (to the method and to the audit log).

An upstream may echo the key it was sent (an error message quoting the bad key). The answer
is searched as the method would read it: each JSON string after unescaping (``\\uXXXX``),
duplicate keys' values included, and each of those strings, or a non-JSON body, also after
undoing ``\\uXXXX``/``\\xXX`` written as text, HTML character references and URL
percent-encoding, and with zero-width and other format characters and white space removed,
compared case-insensitively. A run of 15 or more characters of the key is
enough (a partial echo). A JSON string that holds the key is rewritten (the key as ``***``,
or the whole string withheld when the key is there only in an encoded form) and the answer
re-serialised; a non-JSON body that holds it is replaced whole. Nested encodings (percent
inside HTML inside JSON) and base64 are out of scope.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Final
from urllib.parse import unquote

#: Windows of the key this long, every STRIDE characters: any run of WINDOW + STRIDE - 1
#: characters of the key holds one of them.
WINDOW: Final = 12
STRIDE: Final = 4
WITHHELD_STRING: Final = "*** (withheld by the gateway: it held the API key)"
WITHHELD_BODY: Final = b"(withheld by the gateway: the upstream's answer held the API key)"
#: White space and the format characters that render as nothing (soft hyphen, zero-width
#: spaces and joiners, direction marks, word joiner, byte order mark).
_INVISIBLE = re.compile(r"[\s\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]+")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its pairs, so that a key written twice is searched twice."""


class KeyFilter:
    def __init__(self, key: str) -> None:
        self.key = key
        folded = key.casefold()
        if len(folded) <= WINDOW:
            self.windows = [folded] if folded else []
        else:
            starts = {*range(0, len(folded) - WINDOW + 1, STRIDE), len(folded) - WINDOW}
            self.windows = [folded[i : i + WINDOW] for i in sorted(starts)]

    def leaks(self, text: str) -> bool:
        if not self.windows:
            return False
        for form in _forms(text):
            folded = form.casefold()
            if any(window in folded for window in self.windows):
                return True
        return False

    def scrub(self, answer: bytes) -> bytes:
        """``answer`` unchanged when it holds no trace of the key, else rewritten."""
        if not self.windows:
            return answer
        try:
            value = json.loads(answer, object_pairs_hook=_Pairs)
        except (ValueError, RecursionError):
            text = answer.decode("utf-8", "replace")
            if not self.leaks(text):
                return answer
            text = text.replace(self.key, "***")
            return text.encode("utf-8") if not self.leaks(text) else WITHHELD_BODY
        if not self._holds(value):
            return answer
        return json.dumps(self._rebuilt(value)).encode("ascii")

    def _holds(self, value: Any) -> bool:
        if isinstance(value, str):
            return self.leaks(value)
        if isinstance(value, _Pairs):
            return any(self.leaks(k) or self._holds(v) for k, v in value)
        if isinstance(value, list):
            return any(self._holds(item) for item in value)
        return False

    def _rebuilt(self, value: Any) -> Any:
        if isinstance(value, str):
            if not self.leaks(value):
                return value
            replaced = value.replace(self.key, "***")
            return WITHHELD_STRING if self.leaks(replaced) else replaced
        if isinstance(value, _Pairs):
            return {self._rebuilt(k): self._rebuilt(v) for k, v in value}
        if isinstance(value, list):
            return [self._rebuilt(item) for item in value]
        return value


def _forms(text: str) -> list[str]:
    forms = [text]
    if "\\" in text:
        forms.append(_ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text))
    if "&" in text:
        forms.append(html.unescape(text))
    if "%" in text:
        forms.append(unquote(text))
    squeezed = _INVISIBLE.sub("", text)
    if len(squeezed) != len(text):
        forms.append(squeezed)
    return forms
