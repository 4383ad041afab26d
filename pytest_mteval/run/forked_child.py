"""A child forked from the harness to work beside it, talking only on one pipe.

The harness forks helpers of its own (the scorer process, the word-frequency prefetch): each
holds what the harness holds (the corpus, references included), so each child is made the
same way. It cannot be read by another process of the user (not dumpable, as the harness is
once its runner starts: run/hardening.py), keeps no descriptor but its pipe (a runner's pipes
stay the harness's alone), ignores Ctrl-C and SIGTERM (the harness ends it), never collects
the parent's objects (no finalizer of theirs runs twice) but collects its own, and leaves with
``os._exit`` whatever happens, so that no pytest code of the parent runs in it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import warnings
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe

from pytest_mteval.run.hardening import set_dumpable


def fork_child(body: Callable[[Connection], None]) -> tuple[int, Connection]:
    """Fork a child that runs ``body`` on its end of a new pipe, then exits; the child's pid
    and the parent's end of the pipe."""
    ours, theirs = Pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns that a fork of a process with threads (the runner client's
        # readers) may deadlock a child that takes a lock one of them held. A child here takes
        # none of theirs: it imports at most (the import lock is re-made by fork) and talks
        # only on its pipe.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        ours.close()
        _run(theirs, body)
    theirs.close()
    return pid, ours


def reap(pid: int, kill: bool = False) -> None:
    """Wait for a child to end (after killing it, with ``kill``)."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _run(pipe: Connection, body: Callable[[Connection], None]) -> None:  # pragma: no cover
    code = 0
    try:
        set_dumpable(False)
        gc.freeze()
        gc.enable()  # forked while the harness starts a run, when its collection is paused
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # CI's SIGTERM too: the harness ends it
        keep = pipe.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, _max_fd())
        body(pipe)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 65536
