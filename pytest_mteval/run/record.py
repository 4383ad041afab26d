"""One entry's record: its translation and every per-entry metric, as plain JSON data.

Records are built where the translation happened (an xdist worker, perhaps) and travel to the
controller on the test report, so they carry sufficient statistics rather than objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.base import Metric
from pytest_mteval.metrics.match import exact_match

#: Result fields copied onto the record as they came from the method.
_PASSTHROUGH = (
    "usage",
    "cost_usd",
    "tool_calls",
    "tool_call_count",
    "metadata",
    "cached",
    "cache_rejected",
)


def build_record(
    entry: Entry,
    index: int,
    batch: int,
    result: MethodResult,
    builtin: Sequence[Metric] = (),
    plugins: Sequence[Metric] = (),
) -> dict[str, Any]:
    predicted = result.get("predicted")
    error = result.get("error")
    record: dict[str, Any] = {
        "entry_id": entry.key,
        "index": index,
        "batch": batch,
        "source": entry.source,
        "expected": entry.reference,
        "variants": list(entry.variants),
        "raw_predicted": result.get("raw_predicted", predicted),
        "predicted": predicted,
        "error": error,
        "segment": entry.segment,
        "difficulty": entry.difficulty,
        "domain": entry.domain,
        "provenance": entry.provenance,
        "latency_s": result.get("latency_s"),
        "exact_match": None,
        "chrf_score": None,
        "bleu_score": None,
        "ter_score": None,
        "length_ratio": None,
        "stats": None,
        "plugin_metrics": {},
    }
    for key in _PASSTHROUGH:
        if key in result:
            record[key] = result[key]  # type: ignore[literal-required]
    record.setdefault("tool_call_count", len(record.get("tool_calls") or []))
    if error is not None or not isinstance(predicted, str):
        for metric in builtin:  # what a failure counts for (morphology: its gold units)
            score_failed = getattr(metric, "score_failed", None)
            if score_failed is not None:
                with _recorded_failure(record, metric.name):
                    record.update(score_failed(entry))
        return record
    stats = sacre.segment_stats(predicted, entry.reference)
    scores = sacre.sentence_scores(stats)
    record.update(
        exact_match=exact_match(predicted, entry.reference),
        chrf_score=scores["chrf"],
        bleu_score=scores["bleu"],
        ter_score=scores["ter"],
        length_ratio=len(predicted) / len(entry.reference) if entry.reference else None,
        stats=stats,
    )
    for metric in builtin:
        if not hasattr(metric, "score_batch"):
            with _recorded_failure(record, metric.name):
                record.update(metric.score_entry(entry, predicted))
    for metric in plugins:
        with _recorded_failure(record, metric.name):
            record["plugin_metrics"][metric.name] = metric.score_entry(entry, predicted)
    return record


@contextmanager
def _recorded_failure(record: dict[str, Any], metric: str) -> Iterator[None]:
    """A metric that fails on one entry leaves a note there; the translation and every other
    score of the entry are kept, and the entry is never translated again."""
    try:
        yield
    except Exception as exc:
        record.setdefault("metric_errors", {})[metric] = f"{type(exc).__name__}: {exc}"


def score_batches(
    entries: Sequence[Entry], records: Sequence[dict[str, Any]], builtin: Sequence[Metric]
) -> None:
    """Run the metrics that score a whole batch at once (an embedder, say) on its records."""
    scored = [(e, r) for e, r in zip(entries, records, strict=True) if r["stats"] is not None]
    if not scored:
        return
    for metric in builtin:
        score_batch = getattr(metric, "score_batch", None)
        if score_batch is None:
            continue
        try:
            outputs = score_batch([e for e, _ in scored], [r["predicted"] for _, r in scored])
        except Exception as exc:
            for _, record in scored:
                record.setdefault("metric_errors", {})[metric.name] = f"{type(exc).__name__}: {exc}"
            continue
        for (_, record), output in zip(scored, outputs, strict=True):
            record.update(output)
