"""The corpus as a pytest tree: corpus file -> batch collectors -> one item per entry.

A batch is the parent node of its entries so that xdist's loadscope keeps a batch on one
worker, where it is translated once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _pytest._code.code import ExceptionInfo, TerminalRepr

from pytest_mteval.state import RunState


class EntryError(Exception):
    """An entry whose translation failed; the message is the whole failure report."""


class CorpusFile(pytest.File):
    """The corpus file named by ``--mteval-corpus``."""

    state: RunState

    def collect(self) -> Iterator[BatchCollector]:
        for number in range(len(self.state.batches)):
            batch = BatchCollector.from_parent(self, name=f"batch-{number:04d}")
            batch.number = number
            yield batch


class BatchCollector(pytest.Collector):
    """A batch of entries translated together by one method call."""

    number: int

    def collect(self) -> Iterator[EntryItem]:
        state = self.parent.state  # type: ignore[union-attr]
        for index in state.batches[self.number]:
            yield EntryItem.from_parent(self, name=state.names[index], index=index)


class EntryItem(pytest.Item):
    """One corpus entry: passes when its translation was produced and scored."""

    def __init__(self, *, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index
        state = self.state
        entry = state.corpus.entries[index]
        self.add_marker(pytest.mark.mteval)
        self.extra_keyword_matches.update(
            {f"domain_{entry.domain}", f"difficulty_{entry.difficulty}", f"segment_{entry.segment}"}
        )
        self.record: dict[str, Any] | None = None

    @property
    def state(self) -> RunState:
        return self.parent.parent.state  # type: ignore[union-attr,no-any-return]

    def runtest(self) -> None:
        self.record = self.state.record_for(self.index)
        if self.record["error"] is not None:
            raise EntryError(self.record["error"])

    def repr_failure(
        self, excinfo: ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, EntryError):
            entry = self.state.corpus.entries[self.index]
            return (
                f"translation failed for entry {entry.key!r}\n"
                f"  source: {entry.source}\n"
                f"  error:  {excinfo.value}"
            )
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        entry = self.state.corpus.entries[self.index]
        return self.path, None, f"mteval entry {entry.key} (batch {self.parent.number})"  # type: ignore[union-attr]
