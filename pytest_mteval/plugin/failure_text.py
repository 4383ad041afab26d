"""A failure report whose short-summary line is its first line, also on CI.

pytest puts a report's whole text after ``FAILED node -`` in the short test summary when it
runs on CI (the ``CI`` or ``BUILD_NUMBER`` variable) or with ``-vv``, if the text is a plain
string; a CI log then shows every method traceback twice. A report built like pytest's own
(a traceback part and a crash line) keeps the summary to the crash line, still travels
between xdist workers and the controller, and gives ``--junitxml`` a one-line message.
"""

from __future__ import annotations

import dataclasses

from _pytest._code.code import (  # pytest's report parts: the ones xdist serialises
    ReprEntryNative,
    ReprExceptionInfo,
    ReprFileLocation,
    ReprTraceback,
)

from pytest_mteval.terminal_text import printable


@dataclasses.dataclass(eq=False)
class MtevalFailure(ReprExceptionInfo):
    """The text of a failure this plugin wrote (its own redaction already applied)."""


def failure_report(text: str, path: str) -> str | MtevalFailure:
    """``text`` as a report: a one-line text stays a string, as pytest shows it anyway.
    Control characters a prediction may carry are escaped: the terminal shows, never obeys."""
    text = printable(text)
    first, _, rest = text.partition("\n")
    if not rest:
        return text
    lines = [line + "\n" for line in text.split("\n")]
    traceback = ReprTraceback([ReprEntryNative(lines)], None, "native")
    return MtevalFailure(reprtraceback=traceback, reprcrash=ReprFileLocation(path, 0, first))
