"""Translate batches so that ``--mteval-concurrency`` entries are in flight across batches.

pytest runs items one after another, and a batch is needed when its first item runs. With a
batch size below the concurrency, translating one batch at a time would leave most of the
allowed requests idle, so when a batch is needed the next ones in the run's order are started
too, up to ``concurrency // batch_size`` batches in flight. The order is known only in a serial
run (the selected items); an xdist worker learns its work one batch at a time, so it translates
one batch at a time and the workers provide the parallelism.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodResult, RunConfig, TranslationMethod
from pytest_mteval.run.cache import TranslationCache, split_cached, store
from pytest_mteval.run.translate import MethodRunner, PendingBatch, collect_batch, submit_batch


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
    _order: list[int] = field(default_factory=list)
    _position: dict[int, int] = field(default_factory=dict)
    _started: dict[int, _Started] = field(default_factory=dict)

    def plan(self, order: Sequence[int]) -> None:
        """The batches this process will need, in the order it will need them."""
        self._order = list(dict.fromkeys(order))
        self._position = {batch: i for i, batch in enumerate(self._order)}

    def translate(self, batch: int) -> tuple[dict[str, MethodResult], list[str]]:
        """Results of ``batch`` (one per entry key) and its warnings, waiting for it."""
        self._start(batch)
        for ahead in self._ahead_of(batch):
            self._start(ahead)
        started = self._started.pop(batch)
        fresh, warnings = collect_batch(self.runner, started.pending)
        store(self.cache, self.fingerprint, started.pending.entries, fresh)
        return {**started.cached, **fresh}, warnings

    def drain(self) -> None:
        """When a run stops early (-x, a failed gate, Ctrl-C), wait for the batches started
        ahead (each within its own timeout) and keep their results in the cache: they may
        have been paid for. A second Ctrl-C stops the wait."""
        for started in self._started.values():
            fresh, _ = collect_batch(self.runner, started.pending)
            store(self.cache, self.fingerprint, started.pending.entries, fresh)
        self._started.clear()

    def _ahead_of(self, batch: int) -> list[int]:
        depth = self.config.concurrency // max(self.config.batch_size, 1) - 1
        if depth <= 0 or batch not in self._position:
            return []
        start = self._position[batch] + 1
        return self._order[start : start + depth]

    def _start(self, batch: int) -> None:
        if batch in self._started:
            return
        cached, missing = split_cached(self.cache, self.fingerprint, self.batches[batch])
        pending = submit_batch(self.runner, self.method(), missing, self.config)
        self._started[batch] = _Started(cached, pending)
