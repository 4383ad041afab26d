"""A record that crossed a process boundary shares the keeping process's objects: the same
values (the card is unchanged), not copies of their own per entry."""

from __future__ import annotations

import json

import pytest
from conftest import METHODS, KeptRecords, envelope, flores_entries

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.entry_record import EntryRecord, new_record
from pytest_mteval.run import record_sharing
from pytest_mteval.run.record_sharing import shared_record

pytest_plugins = ["pytester"]


def crossed(record: EntryRecord) -> EntryRecord:
    """The record as the keeping process decodes it: every string and float a copy."""
    decoded: EntryRecord = json.loads(json.dumps(record, ensure_ascii=False))
    return decoded


def record_of(entry: Entry, predicted: str, leaked: list[str]) -> EntryRecord:
    record = new_record(entry.key, entry.source, entry.reference, predicted, None)
    record["raw_predicted"] = predicted
    record["leaked_tokens"] = leaked
    record["hallucination_reasons"] = []
    return record


def test_a_crossed_record_holds_the_corpus_texts_and_one_object_per_word():
    first, second = (Entry(**e) for e in flores_entries(2))
    records = [
        crossed(record_of(first, first.source, ["Previously", "remarked"])),
        crossed(record_of(second, "Ring remarked", ["remarked"])),
    ]
    before = [json.dumps(r, sort_keys=True) for r in records]
    assert records[0]["source"] is not first.source  # what decoding gives: copies
    kept = [shared_record(records[0], first), shared_record(records[1], second)]
    assert [json.dumps(r, sort_keys=True) for r in kept] == before  # the same values
    for record, entry in zip(kept, (first, second), strict=True):
        assert record["source"] is entry.source
        assert record["expected"] is entry.reference
        assert record["entry_id"] is entry.key
        assert record["raw_predicted"] is record["predicted"]
    assert kept[0]["leaked_tokens"][1] is kept[1]["leaked_tokens"][0]  # "remarked", once
    stats = kept[0]["stats"]
    assert stats is not None
    other = kept[1]["stats"]
    assert other is not None
    # a float equal in both records is one object (as in statistics made in this process)
    equal = [(a, b) for a, b in zip(stats["bleu"], other["bleu"], strict=True) if a == b]
    assert equal
    assert all(a is b for a, b in equal)


def test_a_text_that_differs_from_the_corpus_keeps_its_own_value():
    (entry,) = (Entry(**e) for e in flores_entries(1))
    record = crossed(record_of(entry, "something else", []))
    record["source"] = "not the corpus's source"
    shared_record(record, entry)
    assert record["source"] == "not the corpus's source"
    assert record["expected"] is entry.reference


def test_words_past_the_bound_keep_their_own_objects(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(record_sharing, "_WORDS", {})
    monkeypatch.setattr(record_sharing, "_MOST_WORDS", 1)
    (entry,) = (Entry(**e) for e in flores_entries(1))
    one, two = (crossed(record_of(entry, "x", ["kept", "fresh"])) for _ in range(2))
    shared_record(one, entry)
    shared_record(two, entry)
    assert one["leaked_tokens"][0] is two["leaked_tokens"][0]  # within the bound
    assert one["leaked_tokens"][1] is not two["leaked_tokens"][1]  # past it: own copies
    assert one["leaked_tokens"] == two["leaked_tokens"] == ["kept", "fresh"]


def test_records_from_xdist_workers_share_the_controllers_texts_and_words(
    pytester: pytest.Pytester,
):
    corpus = pytester.path / "forty.json"
    corpus.write_text(json.dumps(envelope(flores_entries(40)), ensure_ascii=False), "utf-8")
    kept = KeptRecords()
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-sandbox=none",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        plugins=[kept],
    )
    assert result.ret == 0
    assert len(kept.records) == 40
    assert all(r["source"] is e.source and r["expected"] is e.reference for r, e in kept.records)
    words = [w for r, _ in kept.records for w in r.get("leaked_tokens") or ()]
    assert len(words) > 100  # the identity method leaks its English into every entry
    assert len({id(w) for w in words}) == len(set(words))
