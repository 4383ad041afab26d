"""Where a batch's records are made: in the run's process, or one batch ahead in the scorer
process (run/scorer_process.py) while pytest reports the batch before.

With the scorer, the first item of batch k takes k's records from the child, then waits for
k+1's translations (started when k's arrived, run/batches.py) and hands them to the child,
and only then lets pytest report k's items: the child scores k+1, the method translates k+2
and pytest reports k, on their own cores. One batch at a time is in the child, so neither
side ever blocks on a full pipe. Batches needed out of order (a user's test asking for an
entry, ``--lf``) are taken as they come: what the child holds is received and kept first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.run.batches import BatchTranslator
from pytest_mteval.run.scorer_process import ScorerProcess

Results = dict[str, MethodResult]
Translated = tuple[Results, list[str]]


@dataclass
class BatchScoring:
    translator: BatchTranslator
    #: a batch's records from its results, as the run's process makes them
    score: Callable[[int, Results], list[EntryRecord]]
    #: whether a batch's records were made already (in this process)
    done: Callable[[int], bool]
    #: a record from the child made to share this process's objects (RunState.adopted)
    adopt: Callable[[EntryRecord], EntryRecord] = lambda record: record
    #: whether this run scores beside pytest (``ScorerProcess.wanted``)
    beside: bool = False
    _scorer: ScorerProcess | None = None
    _translated: dict[int, Translated] = field(default_factory=dict)
    _in_child: int | None = None
    _ready: dict[int, list[EntryRecord]] = field(default_factory=dict)

    def batch(self, batch: int) -> tuple[Results, list[str], list[EntryRecord]]:
        """The batch's results, warnings and records."""
        translated = self._translated.pop(batch, None)
        results, warnings = translated or self.translator.translate(batch)
        scorer = self._scorer_process()
        if scorer is None:
            return results, warnings, self.score(batch, results)
        records = self._from_child(scorer, batch, results)
        self._send_following(scorer, batch)
        return results, warnings, records

    def start(self, prepare: Callable[[], None]) -> None:
        """Fork the scorer now, if this run scores beside pytest, to ``prepare`` its metrics
        while the run still starts; without it, the first batch forks it."""
        self._scorer_process(prepare)

    def close(self) -> None:
        if self._scorer is not None:
            self._scorer.close()

    def _scorer_process(self, prepare: Callable[[], None] = lambda: None) -> ScorerProcess | None:
        if self.beside and self._scorer is None:
            self.beside = False  # forked once: a child that is gone is not replaced
            try:
                self._scorer = ScorerProcess(lambda work: self.score(*work), prepare)
            except OSError:  # no process to spare (a limit on processes or memory)
                return None
        if self._scorer is not None and not self._scorer.alive:
            return None
        return self._scorer

    def _from_child(self, scorer: ScorerProcess, batch: int, results: Results) -> list[EntryRecord]:
        if self._in_child is not None and self._in_child != batch:
            self._receive(scorer)  # another batch's records: kept for when it is needed
        if self._in_child is None and batch not in self._ready and scorer.submit((batch, results)):
            self._in_child = batch
        if self._in_child == batch:
            self._receive(scorer)
        records = self._ready.pop(batch, None)
        return records if records is not None else self.score(batch, results)

    def _receive(self, scorer: ScorerProcess) -> None:
        batch, self._in_child = self._in_child, None
        records = scorer.receive()
        if batch is not None and records is not None:
            self._ready[batch] = [self.adopt(record) for record in records]

    def _send_following(self, scorer: ScorerProcess, batch: int) -> None:
        following = self.translator.following(batch)
        if (
            following is None
            or self._in_child is not None
            or following in self._translated
            or following in self._ready
            or self.done(following)
        ):
            return
        translated = self._translated[following] = self.translator.translate(following)
        if scorer.submit((following, translated[0])):
            self._in_child = following
