"""One entry's record from a method's result: the translation, then every selected metric.

Records are built where the translation happened (an xdist worker, perhaps) and travel to the
controller on the test report, so they carry sufficient statistics rather than objects.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics.base import Metric
from pytest_mteval.metrics.entry_record import EntryRecord, new_record

#: Result fields copied onto the record as they came from the method.
_PASSTHROUGH = (
    "usage",
    "cost_usd",
    "tool_calls",
    "tool_call_count",
    "metadata",
    "cached",
    "cache_rejected",
    "truncated_for_scoring",
)


class ScoringTimeout(Exception):
    """The metrics ran past the entry's deadline (``--mteval-score-timeout``)."""


def _check(deadline: float | None, budget_s: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise ScoringTimeout(f"scoring timed out: the metrics took over {budget_s:g}s")


def build_record(
    entry: Entry,
    index: int,
    batch: int,
    result: MethodResult,
    builtin: Sequence[Metric] = (),
    plugins: Sequence[Metric] = (),
    budget_s: float | None = None,
) -> EntryRecord:
    """The entry's record, every metric scored within ``budget_s`` seconds: checked between
    metrics, as each one's input is bounded (run/result_model.py ``scoring_limit``). An entry
    over it is an error, so that one pathological entry never holds up the run."""
    deadline = None if budget_s is None else time.monotonic() + budget_s
    try:
        return _scored(entry, index, batch, result, builtin, plugins, deadline, budget_s)
    except ScoringTimeout as exc:
        failed: MethodResult = {**result, "predicted": None, "error": str(exc)}
        return _scored(entry, index, batch, failed, builtin, plugins, None, None)


def _scored(
    entry: Entry,
    index: int,
    batch: int,
    result: MethodResult,
    builtin: Sequence[Metric],
    plugins: Sequence[Metric],
    deadline: float | None,
    budget_s: float | None,
) -> EntryRecord:
    predicted = result.get("predicted")
    record = new_record(
        entry.key,
        entry.source,
        entry.reference,
        predicted,
        result.get("error"),
        index=index,
        batch=batch,
        variants=entry.variants,
        raw_predicted=result.get("raw_predicted", predicted),
        segment=entry.segment,
        difficulty=entry.difficulty,
        domain=entry.domain,
        provenance=entry.provenance,
        latency_s=result.get("latency_s"),
    )
    for key in _PASSTHROUGH:
        if key in result:
            record[key] = result[key]  # type: ignore[literal-required]
    record.setdefault("tool_call_count", len(record.get("tool_calls") or []))
    if predicted is None or record["stats"] is None:
        for metric in builtin:  # what a failure counts for (morphology: its gold units)
            score_failed = getattr(metric, "score_failed", None)
            if score_failed is not None:
                with _recorded_failure(record, metric.name):
                    add_fields(record, score_failed(entry))
        return record
    for metric in builtin:
        if not hasattr(metric, "score_batch"):
            _check(deadline, budget_s)
            with _recorded_failure(record, metric.name):
                add_fields(record, metric.score_entry(entry, predicted))
    for metric in plugins:
        _check(deadline, budget_s)
        with _recorded_failure(record, metric.name):
            record["plugin_metrics"][metric.name] = metric.score_entry(entry, predicted)
    _check(deadline, budget_s)
    return record


def add_fields(record: EntryRecord, fields: Mapping[str, Any]) -> None:
    """A metric's per-entry fields onto the record (the keys ``EntryRecord`` declares)."""
    record.update(cast(EntryRecord, fields))


@contextmanager
def _recorded_failure(record: EntryRecord, metric: str) -> Iterator[None]:
    """A metric that fails on one entry leaves a note there; the translation and every other
    score of the entry are kept, and the entry is never translated again."""
    try:
        yield
    except Exception as exc:
        record.setdefault("metric_errors", {})[metric] = f"{type(exc).__name__}: {exc}"


def score_batches(
    entries: Sequence[Entry],
    records: Sequence[EntryRecord],
    builtin: Sequence[Metric],
    budget_s: float | None = None,
) -> None:
    """Run the metrics that score a whole batch at once (an embedder, say) on its records,
    within ``budget_s`` seconds per scored entry (a metric past it is not started)."""
    scored = [(e, r) for e, r in zip(entries, records, strict=True) if r["stats"] is not None]
    if not scored:
        return
    total = None if budget_s is None else budget_s * len(scored)
    deadline = None if total is None else time.monotonic() + total
    for metric in builtin:
        score_batch = getattr(metric, "score_batch", None)
        if score_batch is None:
            continue
        try:
            _check(deadline, total)
            outputs = score_batch([e for e, _ in scored], [r["predicted"] for _, r in scored])
        except Exception as exc:
            for _, record in scored:
                record.setdefault("metric_errors", {})[metric.name] = f"{type(exc).__name__}: {exc}"
            continue
        for (_, record), output in zip(scored, outputs, strict=True):
            add_fields(record, output)
