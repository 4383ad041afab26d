"""The traceback of an exception a method raised, in the method's own frames.

A method that crashes fails every entry of its batch; without its traceback the user cannot
see where. The frames of the harness (this package's ``run/``) and of the machinery that ran
the coroutine (asyncio, concurrent.futures, threading) are left out; what is left is what
``--tb`` modes show (``plugin/batch_failure.py``). The text is plain data, so that it crosses
from a runner process like the error message does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import traceback
from dataclasses import dataclass


def _folder(module_file: str | None) -> str:
    return os.path.dirname(os.path.abspath(module_file or "")) + os.sep


_HARNESS = tuple(_folder(f) for f in (__file__, asyncio.__file__, concurrent.futures.__file__))
_THREADING = os.path.abspath(threading.__file__)


def _theirs(frame: traceback.FrameSummary) -> bool:
    path = os.path.abspath(frame.filename)
    return not path.startswith(_HARNESS) and path != _THREADING


def describe(exc: BaseException) -> dict[str, str]:
    """``exc``'s traceback without the harness's frames (all when none is the method's), three
    ways: ``long`` (all its frames, as Python prints them), ``short`` (the innermost frame and
    the exception), ``line`` (``file:line: exception``)."""
    shown = traceback.TracebackException.from_exception(exc)
    frames = [frame for frame in shown.stack if _theirs(frame)] or list(shown.stack)
    shown.stack = traceback.StackSummary.from_list(frames)
    kind = "".join(shown.format_exception_only()).strip()
    last = frames[-1] if frames else None
    short = kind
    line = kind
    if last is not None:
        short = "".join(traceback.StackSummary.from_list([last]).format()) + kind
        line = f"{last.filename}:{last.lineno}: {kind.splitlines()[-1] if kind else ''}"
    return {"long": "".join(shown.format()).rstrip(), "short": short.rstrip(), "line": line}


def from_reply(value: object) -> dict[str, str] | None:
    """A runner's traceback as this process keeps it: the three texts, capped; else None (the
    runner runs the method's code, so its reply is checked like any method output)."""
    if not isinstance(value, dict):
        return None
    texts = {key: value.get(key) for key in ("long", "short", "line")}
    if not all(isinstance(text, str) for text in texts.values()):
        return None
    return {key: str(text)[-20_000:] for key, text in texts.items()}


@dataclass
class BatchFailure:
    """Every entry of a batch failed with one error: the first entry to report it shows the
    traceback, the others name that entry instead of repeating it."""

    batch: int
    size: int
    message: str
    traceback: dict[str, str] | None
    shown_by: str | None = None
