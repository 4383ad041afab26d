"""Translate batches so that ``--mteval-concurrency`` entries are in flight across batches.

pytest runs items one after another, and a batch is needed when its first item runs. With a
batch size below the concurrency, translating one batch at a time would leave most of the
allowed requests idle, so when a batch is needed the next ones in the run's order are started
too, up to ``concurrency // batch_size`` batches in flight. Where that allows one batch only,
the next one starts as soon as a batch's translations arrive, before they are scored: the method
(in its runner process, or waiting on its upstream) works while this process scores and pytest
reports, and never more than one batch is in flight. The order is known only in a serial run
(the selected items); an xdist worker learns its work one batch at a time, so it translates one
batch at a time and the workers provide the parallelism.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodResult, RunConfig, TranslationMethod
from pytest_mteval.run.batch_translation import (
    MethodRunner,
    PendingBatch,
    collect_batch,
    submit_batch,
)
from pytest_mteval.run.cache import TranslationCache, split_cached, store


class BatchBackend(Protocol):
    """Where a method runs when not in this process (run/runner_client.py)."""

    def submit(self, entries: Sequence[Entry], config: RunConfig) -> PendingBatch: ...

    def collect(self, pending: PendingBatch) -> tuple[dict[str, MethodResult], list[str]]: ...

    def limit_waits(self, seconds: float) -> None: ...

    def close(self) -> None: ...


@dataclass
class _Started:
    cached: dict[str, MethodResult]
    pending: PendingBatch


@dataclass
class BatchTranslator:
    batches: Sequence[Sequence[Entry]]
    method: Callable[[], TranslationMethod]
    config: RunConfig
    cache: TranslationCache | None = None
    fingerprint: str = ""
    runner: MethodRunner = field(default_factory=MethodRunner)
    backend: BatchBackend | None = None  # None: the method runs in this process
    _order: list[int] = field(default_factory=list)
    _position: dict[int, int] = field(default_factory=dict)
    _started: dict[int, _Started] = field(default_factory=dict)
    _translated: set[int] = field(default_factory=set)

    def plan(self, order: Sequence[int]) -> None:
        """The batches this process will need, in the order it will need them."""
        self._order = list(dict.fromkeys(order))
        self._position = {batch: i for i, batch in enumerate(self._order)}

    def translate(self, batch: int) -> tuple[dict[str, MethodResult], list[str]]:
        """Results of ``batch`` (one per entry key) and its warnings, waiting for it."""
        self._start(batch)
        for ahead in self._ahead_of(batch):
            self._start_ahead(ahead)
        started = self._started.pop(batch)
        fresh, warnings = self._collect(started.pending)
        store(self.cache, self.fingerprint, started.pending.entries, fresh)
        self._translated.add(batch)
        following = self.following(batch)
        if following is not None and not self._started:  # it translates while this one is
            self._start_ahead(following)  # scored and reported
        return {**started.cached, **fresh}, warnings

    def drain(self, within_s: float | None = None) -> None:
        """When a run stops early (-x, a failed gate, Ctrl-C), wait for the batches started
        ahead (each within its own timeout, or ``within_s`` in all with a runner process) and
        keep their results in the cache: they may have been paid for. A second Ctrl-C stops
        the wait."""
        if within_s is not None and self.backend is not None:
            self.backend.limit_waits(within_s)
        for started in self._started.values():
            fresh, _ = self._collect(started.pending)
            store(self.cache, self.fingerprint, started.pending.entries, fresh)
        self._started.clear()

    def close(self) -> None:
        self.runner.close()
        if self.backend is not None:
            self.backend.close()

    def _collect(self, pending: PendingBatch) -> tuple[dict[str, MethodResult], list[str]]:
        if self.backend is not None:
            return self.backend.collect(pending)
        return collect_batch(self.runner, pending)

    def _ahead_of(self, batch: int) -> list[int]:
        depth = self.config.concurrency // max(self.config.batch_size, 1) - 1
        if depth <= 0 or batch not in self._position:
            return []
        start = self._position[batch] + 1
        return self._order[start : start + depth]

    def following(self, batch: int) -> int | None:
        """The batch needed after ``batch``, if this process knows its order."""
        position = self._position.get(batch)
        if position is None or position + 1 >= len(self._order):
            return None
        return self._order[position + 1]

    def _start_ahead(self, batch: int) -> None:
        """Start a batch before it is needed, unless it was translated already (out of the
        planned order: a user's test asked for one of its entries first)."""
        if batch not in self._translated:
            self._start(batch)

    def _start(self, batch: int) -> None:
        if batch in self._started:
            return
        cached, missing = split_cached(self.cache, self.fingerprint, self.batches[batch])
        if self.backend is not None:
            pending = self.backend.submit(missing, self.config)
        else:
            pending = submit_batch(self.runner, self.method(), missing, self.config)
        self._started[batch] = _Started(cached, pending)
