"""The state of one evaluation in one process: corpus, method, batches and records.

Every process (controller and xdist workers) builds the same RunState from the same options, so
batch numbers and item names agree everywhere. Translations are made lazily, once per batch per
process, and shared by the entry items and the user's own tests on that process.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.methods.loader import MethodSource
from pytest_mteval.methods.protocol import MethodResult, RunConfig, TranslationMethod
from pytest_mteval.metrics.base import Metric
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.run.batch_scoring import BatchScoring
from pytest_mteval.run.batch_translation import MethodRunner
from pytest_mteval.run.batches import BatchTranslator
from pytest_mteval.run.entry_scoring import build_record, score_batches
from pytest_mteval.run.kept_record import kept
from pytest_mteval.run.method_traceback import BatchFailure
from pytest_mteval.run.record_sharing import shared_record
from pytest_mteval.run.redaction import Secrecy
from pytest_mteval.run.run_settings import Settings
from pytest_mteval.run.scorer_process import ScorerProcess
from pytest_mteval.scoring.comparable_run import Comparable

if TYPE_CHECKING:  # cryptography is imported where a run signs or seals, not by every run
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

_UNSAFE = re.compile(r"[^\w.\-]+")


def item_names(entries: Sequence[Entry]) -> list[str]:
    """Readable, unique pytest names for entries: ``entry-<id>``, unsafe characters replaced."""
    names: list[str] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        name = "entry-" + (_UNSAFE.sub("_", entry.key).strip("_") or str(index))
        if name in seen:
            name = f"{name}-{index}"
        seen.add(name)
        names.append(name)
    return names


@dataclass(frozen=True)
class BaselineLoad:
    """The baseline a run is gated against (``--mteval-baseline``), or None when there is no
    file at ``path`` yet (loaded by ``cards/baseline.py``)."""

    path: Path
    comparable: Comparable | None
    #: How the baseline's data differs from the corpus, when that was allowed.
    dataset_change: str | None = None

    @property
    def note(self) -> str:
        return self.describe(hint=True)

    def describe(self, hint: bool) -> str:
        """One line on the baseline; ``hint``: say how to write one when there is none."""
        if self.comparable is None:
            text = f"no baseline at {self.path} yet: nothing to compare with"
            return text + " (write one with --mteval-update-baseline)" if hint else text
        note = f"baseline {self.comparable.describe()}"
        if self.dataset_change is not None:
            note += (
                f"; dataset changed ({self.dataset_change}), compared over unchanged entries only"
            )
        return note


@dataclass
class RunState:
    settings: Settings
    corpus: Corpus
    source: MethodSource
    run_config: RunConfig
    builtin_metrics: list[Metric] = field(default_factory=list)
    plugin_metrics: list[Metric] = field(default_factory=list)
    records: dict[str, EntryRecord] = field(default_factory=dict)
    baseline_load: BaselineLoad | None = None
    _method: TranslationMethod | None = None
    isolation: Any = None  # run/isolation.py: runner process, sandbox, gateway
    _local: dict[str, EntryRecord] = field(default_factory=dict)
    secrecy: Secrecy = field(default_factory=Secrecy)  # text withheld? (run/redaction.py)
    audit: dict[str, Any] | None = None  # the method folder's static audit, for the card
    signer: Ed25519PrivateKey | None = None  # signs the sealed card (--mteval-sign-key)
    steward_key: X25519PublicKey | None = None  # a secret run's review sample is sealed to it
    steward: dict[str, Any] | None = None  # the steward's authorisation (cards/steward.py)
    #: metrics the run asked for by name but could not build, with why (metrics/registry.py)
    metrics_not_computed: list[str] = field(default_factory=list)
    card_path_existed: bool = False  # --mteval-run-card existed before any method code ran
    #: batches whose entries all failed with one error, by number (run/method_traceback.py)
    batch_failures: dict[int, BatchFailure] = field(default_factory=dict)
    _prepared: bool = False  # the metrics' prepare() ran in this process

    def __post_init__(self) -> None:
        entries = self.corpus.entries
        size = self.settings.batch_size
        self.names = item_names(entries)
        self.batches: list[list[int]] = [
            list(range(start, min(start + size, len(entries))))
            for start in range(0, len(entries), size)
        ]
        self.batch_of_name = {
            self.names[i]: b for b, indexes in enumerate(self.batches) for i in indexes
        }
        self.index_of = {entry.key: i for i, entry in enumerate(entries)}
        self.translator = BatchTranslator(
            [[entries[i] for i in indexes] for indexes in self.batches],
            lambda: self.method,
            self.run_config,
        )
        self.scoring = BatchScoring(self.translator, self._scored, self._done, self.adopted)

    @property
    def baseline(self) -> Comparable | None:
        return None if self.baseline_load is None else self.baseline_load.comparable

    @property
    def baseline_note(self) -> str:
        """The baseline's note as the card records it ("" without --mteval-baseline)."""
        return "" if self.baseline_load is None else self.baseline_load.note

    @property
    def runner(self) -> MethodRunner:
        return self.translator.runner

    @property
    def method(self) -> TranslationMethod:
        if self._method is None:
            self._method = self.source.factory(self.run_config)
        return self._method

    def batch_order(self, keys: Sequence[str]) -> list[int]:
        """The batches of these entries (by key), in order of first need; unknown keys skipped."""
        return [
            self.batch_of_name[self.names[self.index_of[key]]]
            for key in keys
            if key in self.index_of
        ]

    def record_for(self, index: int) -> EntryRecord:
        """The entry's record, translating its whole batch on first use in this process."""
        key = self.corpus.entries[index].key
        if key not in self._local:
            self._translate(self.batch_of_name[self.names[index]])
        return self._local[key]

    def _translate(self, batch: int) -> None:
        entries = [self.corpus.entries[i] for i in self.batches[batch]]
        results, warnings, records = self.scoring.batch(batch)
        errors = {results[entry.key].get("error") for entry in entries}
        if len(errors) == 1 and None not in errors:
            where = next((r["traceback"] for r in results.values() if "traceback" in r), None)
            self.batch_failures[batch] = BatchFailure(batch, len(entries), str(*errors), where)
        if warnings:  # on a record, so that they reach the controller under xdist too
            records[0]["batch_warnings"] = [f"batch {batch}: {w}" for w in warnings]
        for record in records:
            self._local[record["entry_id"]] = kept(record)

    def _scored(self, batch: int, results: dict[str, MethodResult]) -> list[EntryRecord]:
        """The batch's records, every selected metric scored (here or in the scorer process)."""
        self._prepare()  # outside the entries' scoring time (--mteval-score-timeout)
        entries = [self.corpus.entries[i] for i in self.batches[batch]]
        records = [
            build_record(
                self.corpus.entries[index],
                index,
                batch,
                results[self.corpus.entries[index].key],
                self.builtin_metrics,
                self.plugin_metrics,
                self.settings.score_timeout_s,
            )
            for index in self.batches[batch]
        ]
        score_batches(entries, records, self.builtin_metrics, self.settings.score_timeout_s)
        return records

    def adopted(self, record: EntryRecord) -> EntryRecord:
        """A record from another process (the scorer child, an xdist worker), made to share
        this process's objects (run/record_sharing.py)."""
        return shared_record(record, self.corpus.entries[record["index"]])

    def _done(self, batch: int) -> bool:
        return self.corpus.entries[self.batches[batch][0]].key in self._local

    def score_beside_pytest(self, worker: bool, runner_process: bool, start: bool) -> None:
        """Score in a child process beside pytest where that is safe and pays
        (run/scorer_process.py); decided once the run's metrics are built, and started at
        once when this process will score entries soon (``start``: not ``--collect-only``, a dry run
        or an xdist controller)."""
        self.scoring.beside = ScorerProcess.wanted(
            len(self.batches), worker, runner_process, self.builtin_metrics, self.plugin_metrics
        )
        if start:
            self.scoring.start(self._prepare)

    def _prepare(self) -> None:
        """What the metrics load before their first entry (``Metric.prepare``), once in each
        process that scores: the scorer process while pytest collects, else the first batch."""
        if self._prepared:
            return
        self._prepared = True
        for metric in self.builtin_metrics:
            prepare = getattr(metric, "prepare", None)
            if prepare is not None:
                with contextlib.suppress(Exception):  # it fails again on each entry, recorded
                    prepare()
