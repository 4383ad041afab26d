"""The contract every metric follows, built-in or registered by a plugin.

A metric scores one entry where the translation happened (possibly an xdist worker) and returns
plain JSON data; the controller later aggregates the per-entry records of the whole run. Nothing
here may hold state that has to cross processes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.definition import MetricDefinition
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.word_frequencies import Read

JSONDict = dict[str, Any]
#: ``judge(entry, predicted)`` returns True/False, or None to leave the decision to the variants.
Judge = Callable[[Entry, str], bool | None]


@dataclass(frozen=True)
class MetricContext:
    """What a metric may know about the run when it is built (the same on every process):
    the corpus, ``--mteval-fst``, and the equivalence judge a plugin contributed."""

    corpus: Corpus
    fst_path: Path | None = None
    judge: Judge | None = None
    #: The word frequencies a child read for this corpus (plugin/word_prefetch.py), by language.
    prefetched_words: Callable[[], Mapping[str, Read]] | None = None


@runtime_checkable
class Metric(Protocol):
    """A metric family.

    ``score_entry`` runs once per successfully translated entry and returns per-entry fields;
    ``aggregate`` runs once on the controller over every record of the run (errored ones
    included, with ``predicted`` None) and returns run-level fields.

    Optional: ``definitions``, the run-level metrics the family contributes (a sequence of
    ``metrics.definition.MetricDefinition``): each is registered in ``metrics/catalog.py``
    and scored from the records into the card's ``scores``, with its interval, in the gate
    and in ``mteval compare``, and in the terminal summary as its ``shown`` says (a built-in's
    definitions also name the other card keys its ``aggregate`` writes, ``card_keys``: a
    plugin's aggregate is kept under ``scores.plugin_metrics``); ``score_failed(entry)``, the
    per-entry statistics an entry that failed to translate contributes (morphology: its gold
    units, none reproduced); for a built-in, ``prepare()``, load now what scoring will need (a
    language's word lists): the scorer process calls it before its first batch, while the
    method's runner boots (run/scorer_process.py).
    """

    name: str

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict: ...

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict: ...


@dataclass(frozen=True)
class BuiltinFamily:
    """A built-in metric family as its module declares it, in a module-level ``FAMILY``:
    ``metrics/registry.py`` finds every such module of this package, so a new built-in metric
    is one module (its definitions, its family class, this declaration) plus its weight in
    ``scoring/composite.py`` when the composite weighs it.

    ``kind`` is the family class: its ``name`` is the selection name (``--mteval-metrics``)
    and its ``definitions`` the run-level metrics it contributes to ``metrics/catalog.py``.
    ``build`` makes it for a run, or None when the run gives it no data. ``build_at`` is its
    place among the families a run builds (the order of the per-entry fields and card keys
    they write), ``report_at`` the place of its definitions among the built-in metrics (the
    HTML report's order). A family not ``default`` is built only when asked for by name, and
    ``why_unavailable`` says why it could not be then (on the card and the terminal).
    """

    kind: type[Metric]
    build: Callable[[MetricContext], Metric | None]
    build_at: int
    report_at: int
    default: bool = True
    why_unavailable: Callable[[MetricContext], str] | None = None

    def __post_init__(self) -> None:
        if not self.default and self.why_unavailable is None:
            raise TypeError(f"{self.name}: a family off by default must say why_unavailable")

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def definitions(self) -> tuple[MetricDefinition, ...]:
        return tuple(getattr(self.kind, "definitions", ()))
