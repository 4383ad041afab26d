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
import errno
import os
import socket
import sysconfig
import threading
import traceback
from dataclasses import dataclass
from functools import lru_cache

#: What a method that calls the network itself is told inside the sandbox, instead of frames.
NO_NETWORK = "the sandbox has no network: use ChatClient (docs/methods.md)"
#: Connection failures that, where only loopback exists, mean "no network here".
_UNREACHABLE = frozenset(
    {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED, errno.EADDRNOTAVAIL}
)


def _folder(module_file: str | None) -> str:
    return os.path.dirname(os.path.abspath(module_file or "")) + os.sep


_HARNESS = tuple(_folder(f) for f in (__file__, asyncio.__file__, concurrent.futures.__file__))
_THREADING = os.path.abspath(threading.__file__)


@lru_cache(maxsize=1)
def _library_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(os.path.abspath(paths[name]) + os.sep for name in names if name in paths)


def _installed(frame: traceback.FrameSummary) -> bool:
    """Whether a frame is in Python's library or an installed package, not the method."""
    return os.path.abspath(frame.filename).startswith(_library_folders())


def _theirs(frame: traceback.FrameSummary) -> bool:
    path = os.path.abspath(frame.filename)
    return not path.startswith(_HARNESS) and path != _THREADING


@lru_cache(maxsize=1)
def _loopback_only() -> bool:
    """Whether this process sees no network interface but loopback (the sandbox's netns)."""
    try:
        names = {name for _index, name in socket.if_nameindex()}
    except OSError:
        return False
    return names <= {"lo"}


def _network_failure(exc: BaseException) -> bool:
    """Whether ``exc`` or an exception it was raised from is a failed name lookup or
    connection (httpx, requests and urllib wrap the socket's own error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return True
        if isinstance(current, OSError) and current.errno in _UNREACHABLE:
            return True
        current = current.__cause__ or current.__context__
    return False


def sandbox_network_refusal(exc: BaseException) -> bool:
    """Whether a method raised ``exc`` because it called the network from the sandbox."""
    return _network_failure(exc) and _loopback_only()


def raised(exc: BaseException) -> str:
    """The one-line error of every entry of a batch whose method raised ``exc``."""
    if sandbox_network_refusal(exc):
        return NO_NETWORK
    return f"method raised {type(exc).__name__}: {exc}"


def describe(exc: BaseException) -> dict[str, str]:
    """``exc``'s traceback without the harness's frames (all when none is the method's), three
    ways: ``long`` (all its frames, as Python prints them), ``short`` (the innermost frame and
    the exception), ``line`` (``file:line: exception``). A call to the network from the
    sandbox is one line in all three: the library's frames would hide the cause."""
    shown = traceback.TracebackException.from_exception(exc)
    frames = [frame for frame in shown.stack if _theirs(frame)] or list(shown.stack)
    shown.stack = traceback.StackSummary.from_list(frames)
    if sandbox_network_refusal(exc):
        own = [frame for frame in frames if not _installed(frame)] or frames
        where = f"{own[-1].filename}:{own[-1].lineno}: " if own else ""
        return {key: where + NO_NETWORK for key in ("long", "short", "line")}
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
