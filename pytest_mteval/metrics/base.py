"""The contract every metric follows, built-in or registered by a plugin.

A metric scores one entry where the translation happened (possibly an xdist worker) and returns
plain JSON data; the controller later aggregates the per-entry records of the whole run. Nothing
here may hold state that has to cross processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.entry_record import EntryRecord

JSONDict = dict[str, Any]


@dataclass(frozen=True)
class MetricContext:
    """What a metric may know about the run when it is built (the same on every process)."""

    corpus: Corpus
    fst_path: Path | None = None


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
    units, none reproduced).
    """

    name: str

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict: ...

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict: ...
