"""What every ``mteval`` command prints goes through ``terminal_text.printable``.

Commands print predictions, card strings and file names read from files others wrote; a
terminal must not obey the escape sequences they may hold. Wrapping the two text streams
once, for the whole command, covers every subcommand, present and future. Bytes written to
``sys.stdout.buffer`` (a decrypted corpus sent to a pipe) pass unchanged: they are data.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from pytest_mteval.terminal_text import printable


class PrintableStream:
    """A text stream that escapes control characters before they reach ``inner``."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(printable(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, buffer, encoding, isatty...
        return getattr(self._inner, name)


@contextmanager
def printable_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escape control characters while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout = PrintableStream(saved[0])
    sys.stderr = PrintableStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
