"""A record that crossed a process boundary shares the objects of the process that keeps it.

Unpickled from the scorer process's pipe or decoded from an xdist worker's JSON, a record holds
its own copy of every string and float it carries, and the process that keeps the run's records
keeps them to the session's end: at 100,000 entries those copies were a fifth of the run's peak
memory. Made to share instead: the corpus's own texts and labels, one float object per value
(``metrics/sacre.py``), and one string object per word of the per-entry word lists (the leaked,
wrong-script, unknown words), which repeat across entries as words do across a corpus.
"""

from __future__ import annotations

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.sacre import shared_stats

#: One string object per distinct word; bounded, so that a method answering with ever-new
#: words costs no more than it would have without sharing.
_WORDS: dict[str, str] = {}
_MOST_WORDS = 200_000


def shared_record(record: EntryRecord, entry: Entry) -> EntryRecord:
    """``record``, edited in place: each value equal to one this process holds is that object."""
    for key, mine in (
        ("entry_id", entry.key),
        ("source", entry.source),
        ("expected", entry.reference),
        ("segment", entry.segment),
        ("domain", entry.domain),
    ):
        if record.get(key) == mine:
            record[key] = mine  # type: ignore[literal-required]
    if record.get("variants") == entry.variants:
        record["variants"] = list(entry.variants)
    if record.get("raw_predicted") == record.get("predicted"):
        record["raw_predicted"] = record["predicted"]
    stats = record.get("stats")
    if stats is not None:
        record["stats"] = shared_stats(stats)
    lists = {key: value for key, value in record.items() if isinstance(value, list) and value}
    for key, words in lists.items():
        if not isinstance(words[0], str):
            continue  # a list of objects (tool calls), not of words
        record[key] = [_shared_word(word) for word in words]  # type: ignore[literal-required]
    return record


def _shared_word(word: object) -> object:
    if not isinstance(word, str):
        return word
    mine = _WORDS.get(word)
    if mine is not None:
        return mine
    if len(_WORDS) < _MOST_WORDS:
        _WORDS[word] = word
    return word
