"""The corpus as a pytest tree: corpus file -> batch collectors -> one item per entry.

A batch is the parent node of its entries so that xdist's loadscope keeps a batch on one
worker, where it is translated once. A run of a sweep (``--mteval-label``) has one more level,
named after its combination: ``corpus.json::gemini_t0.3::batch-0002::entry-42``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import pytest

from pytest_mteval.cards.regressions import InspectionCard, entry_verdict
from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.plugin.batch_failure import entry_failure
from pytest_mteval.plugin.failure_text import failure_report
from pytest_mteval.run.redaction import WITHHELD_ERROR, redact_row
from pytest_mteval.run.run_state import RunState


class EntryError(Exception):
    """An entry whose translation failed; the message is the whole failure report."""


class EntryRegression(Exception):
    """An entry that got worse than its baseline (or fell under a floor): an inspection card."""

    def __init__(self, card: InspectionCard) -> None:
        super().__init__(card.text)
        self.card = card


class CorpusFile(pytest.File):
    """The corpus file named by ``--mteval-corpus``. Its ``mteval`` marker is every entry's
    (``-m mteval``): markers are inherited, and one on the file costs nothing per entry."""

    state: RunState

    def collect(self) -> Iterator[pytest.Collector]:
        self.add_marker(pytest.mark.mteval)
        label = self.state.settings.label
        if label:
            yield LabelledRun.from_parent(self, name=label)
        else:
            yield from _batches(self, len(self.state.batches))


class LabelledRun(pytest.Collector):
    """The run of one sweep combination, named by its label."""

    def collect(self) -> Iterator[pytest.Collector]:
        yield from _batches(self, len(_state(self).batches))


def _batches(parent: pytest.Collector, count: int) -> Iterator[BatchCollector]:
    for number in range(count):
        batch = BatchCollector.from_parent(parent, name=f"batch-{number:04d}")
        batch.number = number
        yield batch


def _state(node: pytest.Collector | pytest.Item) -> RunState:
    corpus = node.getparent(CorpusFile)
    assert corpus is not None, "an mteval node outside its corpus file"
    state: RunState = corpus.state
    return state


class BatchCollector(pytest.Collector):
    """A batch of entries translated together by one method call."""

    number: int

    def collect(self) -> Iterator[EntryItem]:
        state = _state(self)
        for index in state.batches[self.number]:
            yield EntryItem.from_parent(self, name=state.names[index], index=index)


@lru_cache(maxsize=1024)
def _labels(domain: str | None, difficulty: int | None, segment: str) -> frozenset[str]:
    return frozenset({f"domain_{domain}", f"difficulty_{difficulty}", f"segment_{segment}"})


def _keywords(entry: Entry) -> frozenset[str]:
    """``-k domain_news``, ``-k difficulty_2``, ``-k segment_held_out``: a few label strings
    shared by every entry that has them (not three new strings per entry)."""
    return _labels(entry.domain, entry.difficulty, entry.segment)


class EntryItem(pytest.Item):
    """One corpus entry: passes when its translation was produced and scored."""

    def __init__(self, *, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index
        state = self.state
        entry = state.corpus.entries[index]
        self.extra_keyword_matches.update(_keywords(entry))
        self.record: EntryRecord | None = None

    @property
    def state(self) -> RunState:
        return _state(self)

    def runtest(self) -> None:
        state = self.state
        self.record = record = state.record_for(self.index)
        baseline_row = state.baseline.rows.get(record["entry_id"]) if state.baseline else None
        same_data = state.baseline is not None and state.baseline.dataset_sha256 == (
            state.corpus.sha256
        )  # then texts agree, even where the baseline's card withholds them
        if baseline_row is not None and not same_data and _texts(baseline_row) != _texts(record):
            baseline_row = None  # the entry changed: the gate leaves it out, so does its item
        if state.secrecy.withheld:  # reasons and card must not quote text (run/redaction.py)
            before = None if baseline_row is None else redact_row(baseline_row, with_stats=False)
            now = redact_row(record, with_stats=False)
            verdict = entry_verdict(before, now, state.settings.entry_gate)
        else:
            verdict = entry_verdict(baseline_row, record, state.settings.entry_gate)
        if verdict.card is not None:
            raise EntryRegression(verdict.card)
        if record["error"] is not None:
            raise EntryError(record["error"])

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> Any:  # str, or pytest's own (non-public) TerminalRepr from the base class
        text = self._failure_text(excinfo)
        if text is None:
            return super().repr_failure(excinfo, style=style)
        return failure_report(text, str(self.path))

    def _failure_text(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
        """This plugin's own text for a regression or a failed translation, else None."""
        style = str(self.config.getoption("tbstyle", "auto"))
        if isinstance(excinfo.value, EntryRegression):
            return excinfo.value.card.for_style(style)
        if isinstance(excinfo.value, EntryError) and self.state.secrecy.withheld:
            key = self.state.corpus.entries[self.index].key
            return f"translation failed for entry {key!r}\n  {WITHHELD_ERROR}"
        if isinstance(excinfo.value, EntryError):
            state = self.state
            failure = state.batch_failures.get(self.parent.number)  # type: ignore[union-attr]
            entry = state.corpus.entries[self.index]
            return entry_failure(entry, str(excinfo.value), failure, style)
        return None

    def reportinfo(self) -> tuple[Any, int | None, str]:
        entry = self.state.corpus.entries[self.index]
        return self.path, None, f"mteval entry {entry.key} (batch {self.parent.number})"  # type: ignore[union-attr]


def batch_order(state: RunState, items: list[pytest.Item]) -> list[int]:
    """The batches a serial run will translate, in the order its items need them."""
    keys: list[str] = []
    for item in items:
        if isinstance(item, EntryItem):
            keys.append(state.corpus.entries[item.index].key)
            continue
        entry = getattr(getattr(item, "callspec", None), "params", {}).get("mteval_entry")
        if isinstance(entry, Entry):
            keys.append(entry.key)
    return state.batch_order(keys)


def _texts(row: EntryRecord) -> tuple[str | None, str | None]:
    return row.get("source"), row.get("expected")
