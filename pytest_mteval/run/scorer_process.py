"""A serial run's built-in metrics scored in a child process, beside pytest's item protocol.

In a serial run one process did pytest's per-item protocol and all the scoring one after the
other, while the second core idled: at 10,120 FLORES entries, scoring was about half of the run.
A run of many batches now scores in a child forked from the run's own process as soon as its
metrics are built, so the child holds the same corpus and the same built metrics (nothing
rebuilt, nothing sent but the translations). While the parent waits for the method's runner to
boot, the child loads what the metrics will need (``prepare()``: wordfreq's import for the
code-switching detector, and its word lists, 0.03-0.08 s a language, unless the harness adopted
them from the word prefetch, plugin/word_prefetch.py); then, while pytest reports the
items of one batch, the child scores the next. The child's records are what the same code
makes in the run's process, so a card is the same byte for byte (tests/test_scorer_process.py
compares the two).

Where it is used (``ScorerProcess.wanted``): on Linux (fork), in a run of at least
``MIN_BATCHES`` batches that is not an xdist worker (the workers use the cores), whose method
runs in a runner process (not in the harness), and whose selected metrics all score one entry
at a time: a batch metric (the semantic score) runs native threads that a fork does not carry,
and a plugin's metric is its author's code, left in the run's process.

The child is made as every child of the harness is (run/forked_child.py: not dumpable, no
descriptor but its pipe, deaf to Ctrl-C) and exits when the parent closes the pipe or dies. A
child that dies or fails leaves its batch to the parent, which scores it and every later batch
itself: nothing is lost.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.run.forked_child import fork_child, reap

#: Fewer batches than this are scored in the run's process: forking would not pay.
MIN_BATCHES = 4

#: One batch's work: its number and its results, by entry key.
Work = tuple[int, dict[str, MethodResult]]
Score = Callable[[Work], list[EntryRecord]]


class ScorerProcess:
    """One forked child that turns a batch's translations into its records, one at a time."""

    def __init__(self, score: Score, prepare: Callable[[], None] = lambda: None) -> None:
        self.pid, pipe = fork_child(lambda theirs: _serve(theirs, score, prepare))
        self._pipe: Connection | None = pipe

    @staticmethod
    def wanted(
        batches: int,
        worker: bool,
        runner_process: bool,
        builtin: Sequence[object],
        plugins: Sequence[object] = (),
    ) -> bool:
        """Whether a run scores beside pytest (see the module docstring)."""
        return (
            sys.platform == "linux"
            and batches >= MIN_BATCHES
            and not worker
            and runner_process
            and not plugins
            and not any(hasattr(metric, "score_batch") for metric in builtin)
        )

    @property
    def alive(self) -> bool:
        return self._pipe is not None

    def submit(self, work: Work) -> bool:
        """Hand the child one batch's work; False when it is gone (then score it here)."""
        if self._pipe is None:
            return False
        try:
            self._pipe.send(work)
        except (OSError, ValueError):
            self.close()
            return False
        return True

    def receive(self) -> list[EntryRecord] | None:
        """The records of the batch submitted last, or None when the child failed or is gone
        (the batch is then scored here, and so is every later one)."""
        if self._pipe is None:
            return None
        try:
            status, payload = self._pipe.recv()
        except (EOFError, OSError):
            self.close()
            return None
        if status != "ok":
            self.close()
            return None
        return list(payload)

    def close(self) -> None:
        """End the child: it exits when its pipe closes; reaped here."""
        if self._pipe is None:
            return
        self._pipe.close()
        self._pipe = None
        reap(self.pid)


def _serve(
    pipe: Connection, score: Score, prepare: Callable[[], None]
) -> None:  # pragma: no cover - runs in the child
    """The child's loop: work in, records out, until the pipe closes. First the metrics load
    what they will need, while the parent still waits for the first batch."""
    with contextlib.suppress(Exception):  # a metric that fails here fails on its batch
        prepare()
    while True:
        try:
            work = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("ok", score(work))
        except BaseException as exc:  # the parent scores this batch itself
            reply = ("error", f"{type(exc).__name__}: {exc}")
        pipe.send(reply)
