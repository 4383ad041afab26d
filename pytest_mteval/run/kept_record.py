"""The record a run's process keeps is its card row, so that a large run holds one dict per
entry, not two.

A record is made with keys a card's row does not show (its corpus position, its batch, its
sacrebleu statistics, its batch's warnings). Before, the card copied every record without them
into a row of its own at the run's end: 0.7 KB per entry, 70 MB at 100,000 entries, at the
peak. Kept here as a ``KeptRecord`` instead (``metrics/entry_record.py``): the row's keys in
the row's order, the rest beside them, so the card takes the kept records as its rows. Where
a kept record crosses to the controller as JSON (an xdist worker's), ``on_the_wire`` puts
what rides beside back among its keys, and the controller keeps it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

from pytest_mteval.metrics.entry_record import (
    SPEC_ROW,
    EntryRecord,
    KeptRecord,
    record_index,
    record_stats,
    record_warnings,
)

#: Keys of a record as made that are not its card row's.
NOT_ON_THE_ROW: Final = frozenset({"stats", "index", "batch", "batch_warnings"})


def kept(record: EntryRecord) -> EntryRecord:
    """The record as its card row, in the row's key order (the spec's keys first, then the
    rest as the record has them), with its statistics, position and warnings beside."""
    if isinstance(record, KeptRecord):
        return cast(EntryRecord, record)
    row = dict.fromkeys(SPEC_ROW)
    row.update((key, value) for key, value in record.items() if key not in NOT_ON_THE_ROW)
    out = KeptRecord(row.items(), record_index(record), record_stats(record))
    out.batch_warnings = record_warnings(record)
    return cast(EntryRecord, out)


def on_the_wire(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A record as JSON carries it to another process: what rides beside among its keys."""
    if not isinstance(record, KeptRecord):
        return record
    wire: dict[str, Any] = {**record, "index": record.index, "stats": record.stats}
    if record.batch_warnings:
        wire["batch_warnings"] = record.batch_warnings
    return wire
