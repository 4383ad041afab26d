"""Outputs that belong to other entries, found by looking at the whole run at once.

- *Same output for different sources*: one output given for at least ``MIN_REPEATS`` entries
  whose sources and references all differ. A model that answers every input with one fluent
  sentence games every per-entry check; real corpora repeat a meaning with different wording
  ("I'm tired." / "I am tired."), which is why the references must differ too.
- *Another entry's reference*: an output of 8 letters or more that is (nearly) another
  entry's reference and not close to its own reference or variants (character-trigram Dice
  >= 0.9 with the other, at least 0.4 more than with its own): a translation memory, a
  few-shot example or a cache answering for the wrong entry. Looser thresholds are not safe:
  in corpora of short sentences a good translation often resembles the reference of another
  sentence that means much the same, and short formulas ("See you!") coincide outright.
  An output that is part of its own reference is never another entry's: "Thank you." for
  "Thank you. Thank you, everyone." is at most an omission, though another entry of the
  same talk has the reference "Thank you." (WMT21 TED zh->en).
  Candidates come from an index of the references' words (character pairs in Han, kana and
  hangul, which have no spaces), so a run costs about linear time, not every pair.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.match import output_key
from pytest_mteval.metrics.overlap import similarity
from pytest_mteval.metrics.text import ALNUM_RUN, letters, nfc
from pytest_mteval.metrics.writing_systems import system_of_char

MIN_REPEATS = 3
MIN_LETTERS = 8
MIN_OTHER_SIMILARITY = 0.9
MIN_MARGIN = 0.4
#: Index features shared by more references than this are too common to point anywhere.
MAX_DOCUMENT_FREQUENCY = 50
CANDIDATES = 3


def same_output(records: Sequence[EntryRecord]) -> dict[str, list[str]]:
    """Output -> ids of the entries that got it, for outputs repeated across distinct entries."""
    groups: dict[str, list[EntryRecord]] = defaultdict(list)
    for record in records:
        if record.get("predicted") and ALNUM_RUN.search(record["predicted"]):
            groups[output_key(record["predicted"])].append(record)
    repeated = {}
    for output, members in groups.items():
        sources = {output_key(m.get("source")) for m in members}
        references = {output_key(m.get("expected")) for m in members}
        if min(len(sources), len(references)) >= MIN_REPEATS:
            repeated[output] = [str(m.get("entry_id")) for m in members]
    return repeated


def _features(text: str) -> set[str]:
    found: set[str] = set()
    for token in ALNUM_RUN.findall(nfc(text).casefold()):
        if system_of_char(token[0]) == "CJK":
            found.update(token[i : i + 2] for i in range(max(1, len(token) - 1)))
        else:
            found.add(token)
    return found


#: The postings of a feature found in more than MAX_DOCUMENT_FREQUENCY references: dropped as
#: the index is built, since no search reads them (a large run's most common words would
#: otherwise hold most of the index: tens of MB at the end of a run of 100 k entries).
_TOO_COMMON: list[int] = []


def _index(references: Iterable[str]) -> dict[str, list[int]]:
    """Feature -> the rows whose references have it, for features rare enough to search by."""
    index: dict[str, list[int]] = {}
    for j, reference in enumerate(references):
        for feature in _features(reference):
            postings = index.get(feature)
            if postings is None:
                index[feature] = [j]
            elif postings is not _TOO_COMMON:
                if len(postings) < MAX_DOCUMENT_FREQUENCY:
                    postings.append(j)
                else:
                    index[feature] = _TOO_COMMON
    return index


def _candidates(index: dict[str, list[int]], text: str, exclude: int) -> list[int]:
    """The rows whose references share the most index features with ``text``, among those
    sharing at least half of its rarer features (a Dice of 0.9 is out of reach below that)."""
    shared: Counter[int] = Counter()
    counted = 0
    for feature in _features(text):
        postings = index.get(feature)
        if postings is None:  # in no reference: counted, pointing nowhere
            counted += 1
        elif postings is not _TOO_COMMON:
            shared.update(postings)
            counted += 1
    shared.pop(exclude, None)
    enough = [(count, -j) for j, count in shared.items() if 2 * count >= counted]
    return [-negative for _, negative in heapq.nlargest(CANDIDATES, enough)]


def _own_similarity(predicted: str, own: Iterable[str]) -> float:
    return max(similarity(predicted, text) for text in own)


def fits_other_reference(records: Sequence[EntryRecord]) -> dict[str, str]:
    """Entry id -> id of the entry whose reference its output (nearly) is."""
    rows = [r for r in records if r.get("predicted") and r.get("expected")]
    index = _index(str(row["expected"]) for row in rows)
    found = {}
    for i, row in enumerate(rows):
        predicted = str(row["predicted"])
        if letters(predicted) < MIN_LETTERS:
            continue
        own = [row["expected"], *(row.get("variants") or ())]
        own_keys, own_source = {output_key(t) for t in own}, output_key(row.get("source"))
        if any(output_key(predicted) in key for key in own_keys):
            continue
        for j in _candidates(index, predicted, exclude=i):
            other = rows[j]
            if (
                output_key(other["expected"]) in own_keys
                or output_key(other.get("source")) == own_source
            ):
                continue
            score = similarity(predicted, str(other["expected"]))
            if score >= MIN_OTHER_SIMILARITY and score - _own_similarity(predicted, own) >= (
                MIN_MARGIN
            ):
                found[str(row.get("entry_id"))] = str(other.get("entry_id"))
                break
    return found
