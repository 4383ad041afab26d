"""The record a run keeps is its card row (one dict per entry, not a record and a row's copy),
with what a row does not show beside it, and nothing of either lost across processes."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest
from conftest import METHODS, envelope, flores_entries

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.entry_record import (
    SPEC_ROW,
    EntryRecord,
    new_record,
    record_family_stats,
    record_index,
    record_stats,
    record_warnings,
)
from pytest_mteval.plugin.run_stash import STATE
from pytest_mteval.run.kept_record import kept, on_the_wire

pytest_plugins = ["pytester"]

#: What a card's row is, as the spec (§3.7) and the card schema define it: the spec's keys
#: first (null where a record has none), then the record's own keys, never its plumbing.
PLUMBING = {"stats", "index", "batch", "batch_warnings"}


def made(index: int = 3) -> EntryRecord:
    entry = Entry(**flores_entries(1)[0])
    record = new_record(entry.key, entry.source, entry.reference, "Auparavant", None, index=index)
    record["leaked_tokens"] = ["Previously"]
    record["batch_warnings"] = ["batch 0: slow"]
    return record


def test_a_kept_record_is_the_row_in_the_rows_key_order_with_its_plumbing_beside():
    record = made()
    row = kept(record)
    expected_keys = list(SPEC_ROW) + [k for k in record if k not in SPEC_ROW and k not in PLUMBING]
    assert list(row) == expected_keys
    assert all(row[k] == record[k] for k in record if k not in PLUMBING)  # type: ignore[literal-required]
    assert record_index(row) == 3
    assert record_stats(row) == record["stats"]
    assert record_warnings(row) == ["batch 0: slow"]
    assert kept(row) is row  # kept once


def test_a_kept_records_statistics_read_family_by_family_as_a_made_records_do():
    record = made()
    row = kept(record)
    stats = record["stats"]
    assert stats is not None
    assert list(stats) == ["chrf", "bleu", "ter"]
    for family, values in stats.items():
        for either in (record, row):
            found = record_family_stats(either, family)
            assert found is not None
            assert list(found) == values
            assert all(a is b for a, b in zip(found, values, strict=True))  # the same floats
    assert record_family_stats(row, "meteor") is None
    errored = new_record("9", "a source", "a reference", None, "failed")
    assert record_stats(kept(errored)) is None
    assert record_family_stats(kept(errored), "chrf") is None
    assert record_family_stats(errored, "chrf") is None


def test_a_kept_record_crosses_processes_whole():
    row = kept(made(index=7))
    for back in (json.loads(json.dumps(on_the_wire(row))), pickle.loads(pickle.dumps(row))):
        again = kept(back)
        assert json.dumps(again) == json.dumps(row)  # the same row, key for key
        assert record_index(again) == 7
        assert record_stats(again) == record_stats(row)
        assert record_warnings(again) == ["batch 0: slow"]


class CardRows:
    """The card's rows and the run's kept records, as the card hook sees them."""

    def __init__(self) -> None:
        self.same: list[bool] = []
        self.plumbing: set[str] = set()
        self.with_stats = 0

    def pytest_mteval_run_card(self, card: dict[str, Any], config: pytest.Config) -> None:
        records = config.stash[STATE].records
        self.same = [row is records[row["entry_id"]] for row in card["results"]]
        self.plumbing = {key for row in card["results"] for key in row if key in PLUMBING}
        self.with_stats = sum(record_stats(r) is not None for r in records.values())


@pytest.mark.parametrize("workers", [0, 2])
def test_the_cards_rows_are_the_runs_records_serial_or_parallel(
    pytester: pytest.Pytester, workers: int
):
    corpus = pytester.path / "twelve.json"
    corpus.write_text(json.dumps(envelope(flores_entries(12)), ensure_ascii=False), "utf-8")
    seen = CardRows()
    parallel = ["-n", str(workers)] if workers else ["-p", "no:xdist"]
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=3",
        "--mteval-sandbox=none",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        "-p",
        "no:cacheprovider",
        *parallel,
        plugins=[seen],
    )
    assert result.ret == 0
    assert seen.same == [True] * 12
    assert not seen.plumbing
    assert seen.with_stats == 12  # a worker's statistics reach the controller, not recomputed
    written = json.loads((pytester.path / "card.json").read_text(encoding="utf-8"))
    assert [r["entry_id"] for r in written["results"]] == [str(e["id"]) for e in flores_entries(12)]
    assert not {key for row in written["results"] for key in row if key in PLUMBING}
