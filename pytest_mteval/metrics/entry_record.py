"""The entry record: one entry's translation and every per-entry score, and its one builder;
and the card's result row, which is a record without its internal keys.

A record is made where the translation happened (an xdist worker, perhaps), crosses to the
controller as a JSON string and is read back with ``json.loads``; a run has 10k-100k of them.
So it is a ``TypedDict`` (a plain dict at run time, no validation cost per entry) rather than a
model, and every key any of our code reads is declared here with its type. Per-metric fields
are optional: a metric that was not selected leaves none. A reference-harness report's entries
are re-scored into the same shape by the same builder (``scoring/comparable_run.py``). The run's
process keeps each record as its card row (``KeptRecord``, ``run/kept_record.py``): the card's
rows are the kept records themselves, the internal keys kept beside the row's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NotRequired, cast

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.match import exact_match

#: Per family ("chrf", "bleu", "ter"), one segment's sacrebleu sufficient statistics.
SegmentStats = dict[str, list[float]]


#: The spec's row fields: null on a card's row where the entry has no value.
SPEC_ROW: Final = (
    *("entry_id", "source", "expected", "raw_predicted", "predicted", "segment"),
    *("difficulty", "domain", "exact_match", "chrf_score", "bleu_score", "latency_s"),
    *("cost_usd", "tool_call_count", "error", "plugin_metrics", "fst_valid"),
    *("equivalent_match", "semantic_verdict", "code_switching_detected"),
    "hallucination_detected",
)


@with_config(ConfigDict(extra="ignore"))  # kept, unchecked
class ResultRow(TypedDict):
    """spec §3.7, one per evaluated entry: an entry record (``metrics/entry_record.py``) without its
    internal keys. A TypedDict, not a model: a card may have 100,000 rows, and validating
    them as dicts costs a third of building a model per row."""

    entry_id: str
    #: Always text on a record; a secret run's card rows carry None (run/redaction.py).
    source: str | None
    expected: str | None
    raw_predicted: NotRequired[str | None]
    predicted: str | None
    segment: NotRequired[str | None]
    #: The corpus's difficulty tier as text, as spec §3.7 types it ("2"); an integer on the
    #: rows of cards sealed before issue 42, which still verify.
    difficulty: NotRequired[str | int | None]
    domain: NotRequired[str | None]
    exact_match: bool | None
    chrf_score: float | None
    bleu_score: float | None
    latency_s: NotRequired[float | None]
    cost_usd: NotRequired[float | None]
    tool_call_count: NotRequired[int]
    error: str | None
    #: A plugin metric's name -> what its ``score_entry`` returned (any JSON object).
    plugin_metrics: NotRequired[dict[str, dict[str, Any]]]
    fst_valid: NotRequired[bool | None]
    equivalent_match: NotRequired[bool | None]
    semantic_verdict: NotRequired[str | None]
    code_switching_detected: NotRequired[bool | None]
    hallucination_detected: NotRequired[bool | None]
    # Beyond the spec, written by this harness (absent from older cards).
    variants: NotRequired[list[str]]
    provenance: NotRequired[str | None]
    ter_score: NotRequired[float | None]
    length_ratio: NotRequired[float | None]


class EntryRecord(ResultRow):
    """One entry's record: a card's row (its keys without ``NotRequired`` are on the rows of
    every card, older ones' included) and the keys a row does not carry. ``new_record`` sets
    every key of a row, whether the row's type requires it or not."""

    #: Position in the corpus, batch number and statistics: internal, not on the card's rows.
    #: A kept record (``KeptRecord``) holds them beside its keys, not as keys: read them with
    #: ``record_index`` and ``record_stats`` / ``record_family_stats``, never by key.
    index: int
    batch: int
    stats: SegmentStats | None
    # What the method reported, copied as it came (methods/protocol.py MethodResult).
    usage: NotRequired[dict[str, int]]
    tool_calls: NotRequired[list[dict[str, Any]]]
    metadata: NotRequired[dict[str, Any]]
    cached: NotRequired[bool]
    cache_rejected: NotRequired[bool]
    # Set by the harness.
    metric_errors: NotRequired[dict[str, str]]
    batch_warnings: NotRequired[list[str]]
    text_withheld: NotRequired[bool]
    #: The prediction was cut for scoring: kept and original lengths (run/result_model.py).
    truncated_for_scoring: NotRequired[dict[str, int]]
    # Per-metric fields (metrics/*.py ``score_entry``).
    fst_words: NotRequired[int]
    fst_accepted_words: NotRequired[int]
    fst_rejected_words: NotRequired[list[str] | None]
    morphological_accuracy: NotRequired[float | None]
    morphology_units: NotRequired[int]
    morphology_reproduced: NotRequired[int]
    equivalent_judged: NotRequired[bool]
    orthography_letters: NotRequired[int]
    orthography_valid_letters: NotRequired[int]
    orthographic_accuracy: NotRequired[float | None]
    orthography_foreign_letters: NotRequired[list[str]]
    leaked_tokens: NotRequired[list[str]]
    wrong_script_tokens: NotRequired[list[str]]
    hallucination_reasons: NotRequired[list[str]]
    terminology_required: NotRequired[int]
    terminology_present: NotRequired[int]
    terminology_missing: NotRequired[list[str]]
    terminology_adherence: NotRequired[float | None]
    semantic_score: NotRequired[float | None]


def new_record(
    entry_id: str,
    source: str,
    expected: str,
    predicted: str | None,
    error: str | None,
    *,
    index: int = 0,
    batch: int = 0,
    variants: Sequence[str] = (),
    raw_predicted: str | None = None,
    segment: str | None = None,
    difficulty: int | str | None = None,
    domain: str | None = None,
    provenance: str | None = None,
    latency_s: float | None = None,
) -> EntryRecord:
    """The record of one translation (or failure), scored with chrF++, BLEU, TER and exact
    match when there is a translation; the only place a record is made."""
    record: EntryRecord = {
        "entry_id": entry_id,
        "index": index,
        "batch": batch,
        "source": source,
        "expected": expected,
        "variants": list(variants),
        "raw_predicted": raw_predicted,
        "predicted": predicted,
        "error": error,
        "segment": segment,
        "difficulty": None if difficulty is None else str(difficulty),  # spec §3.7: text
        "domain": domain,
        "provenance": provenance,
        "latency_s": latency_s,
        "exact_match": None,
        "chrf_score": None,
        "bleu_score": None,
        "ter_score": None,
        "length_ratio": None,
        "stats": None,
        "plugin_metrics": {},
    }
    if error is None and isinstance(predicted, str):
        stats = sacre.segment_stats(predicted, expected)
        scores = sacre.sentence_scores(stats)
        record["exact_match"] = exact_match(predicted, expected)
        record["chrf_score"] = scores["chrf"]
        record["bleu_score"] = scores["bleu"]
        record["ter_score"] = scores["ter"]
        record["length_ratio"] = len(predicted) / len(expected) if expected else None
        record["stats"] = stats
    return record


class KeptRecord(dict[str, Any]):
    """A record as the run's process keeps it to the session's end (``run/kept_record.py``).

    Its keys are its card row's, in the row's order, so that the card's row is this very dict:
    one dict per entry at the peak of a large run's end, not a record and its row's copy. What
    a row does not show rides beside the keys: read it with ``record_stats``,
    ``record_family_stats``, ``record_index`` and ``record_warnings``, which read a record as
    made (or a row that carries them) as well. The statistics are a tuple per family (a dict
    of three lists was 0.75 KB an entry, the tuples are 0.47 KB), the families' names shared
    by every record that has the same; a table reads each family's tuple as it is.
    """

    __slots__ = ("_layout", "_values", "batch_warnings", "index")

    def __init__(
        self, row: Iterable[tuple[str, Any]], index: int, stats: SegmentStats | None
    ) -> None:
        super().__init__(row)
        self.index = index
        self.batch_warnings: list[str] = []
        self._layout: _Layout | None = None
        self._values: tuple[tuple[float, ...], ...] = ()
        if stats is not None:
            layout = tuple(stats)
            self._layout = _LAYOUTS.setdefault(layout, layout)
            self._values = tuple(tuple(values) for values in stats.values())

    def family_stats(self, family: str) -> tuple[float, ...] | None:
        if self._layout is None or family not in self._layout:
            return None
        return self._values[self._layout.index(family)]

    @property
    def stats(self) -> SegmentStats | None:
        if self._layout is None:
            return None
        return {name: list(values) for name, values in zip(self._layout, self._values, strict=True)}


#: Which families a record's statistics hold, in order.
_Layout = tuple[str, ...]
_LAYOUTS: dict[_Layout, _Layout] = {}


def record_stats(record: Mapping[str, Any]) -> SegmentStats | None:
    """A record's sacrebleu statistics, None where it has none (an errored entry)."""
    if isinstance(record, KeptRecord):
        return record.stats
    stats: SegmentStats | None = record.get("stats")
    return stats


def record_family_stats(record: Mapping[str, Any], family: str) -> Sequence[float] | None:
    """One family's statistics of a record, None where it has none: without building the
    others (a run's tables read one family of every record)."""
    if isinstance(record, KeptRecord):
        return record.family_stats(family)
    stats = record.get("stats")
    return stats.get(family) if stats else None


def record_index(record: Mapping[str, Any]) -> int:
    """A record's position in the corpus."""
    return record.index if isinstance(record, KeptRecord) else int(record["index"])


def record_warnings(record: Mapping[str, Any]) -> list[str]:
    """What the method warned about the record's batch (on the batch's first record)."""
    if isinstance(record, KeptRecord):
        return record.batch_warnings
    return list(record.get("batch_warnings") or ())


def as_records(rows: Iterable[Any]) -> list[EntryRecord]:
    """Rows read back from JSON (a card's ``results``) as records: copies, so that adding
    statistics to one never edits the card. A card is checked against its schema
    (``cards/runcard.py``) before it is sealed or read; a row lacks only the internal keys."""
    return [cast(EntryRecord, dict(row)) for row in rows]


def number(record: EntryRecord, key: str) -> float | None:
    """A numeric per-entry field named at run time (by a metric's table); None if absent."""
    value = record.get(key)
    return float(value) if isinstance(value, int | float) else None
