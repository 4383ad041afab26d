"""The project's one base exception.

Every error a user can cause (an option, a corpus, a method, a card, a price file) is an
``MtevalError`` whose message is one line naming the file, the entry and the field, so callers
(the plugin, the ``mteval`` command) catch one type and print it, never a traceback.
"""

from __future__ import annotations


class MtevalError(Exception):
    """A problem in something a user gave pytest-mteval; ``str()`` is the whole message,
    one line: control characters quoted from a file (a key with a newline) are escaped."""

    def __str__(self) -> str:
        return _one_line(super().__str__())


class ManifestError(MtevalError):
    """A method.json or method card that cannot be used; the message names file and field."""


class MethodLoadError(MtevalError):
    """A method that cannot be found or built; the message says which and why."""


class SigningError(MtevalError):
    """A key or signature that cannot be used; the message is one line naming the file."""


class SettingsError(MtevalError):
    """An option value that cannot be used; the message names the option. Raised by the
    pytest layer reading options and by the floors below it checking them at start."""


def _one_line(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
