"""Assemble the run card of a finished run from its records (controller only)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest_mteval
from pytest_mteval.aggregate import breakdown, quality_scores, speed_scores
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.methods.protocol import DescribesPrompt
from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.base import Record
from pytest_mteval.runcard import ResultRow, Scores
from pytest_mteval.state import RunState

#: Record keys that are internal plumbing, not part of a result row.
_INTERNAL = frozenset({"stats", "index", "batch"})


def build_card(
    state: RunState,
    records: Sequence[Record],
    run_id: str,
    timestamp: str,
    elapsed_s: float,
    method_card: MethodCard | None,
) -> dict[str, Any]:
    settings, corpus, config = state.settings, state.corpus, state.run_config
    prompt = _system_prompt(state)
    scores: dict[str, Any] = dict.fromkeys(Scores.model_fields)  # null where not measured
    scores.update(quality_scores(records), **speed_scores(records, elapsed_s))
    for metric in state.builtin_metrics:
        scores.update(metric.aggregate(records))
    scores["plugin_metrics"] = {m.name: m.aggregate(records) for m in state.plugin_metrics}
    scores["by_difficulty"] = breakdown(records, lambda r: r["difficulty"])
    scores["by_provenance"] = breakdown(records, lambda r: r["provenance"])
    scores["by_domain"] = breakdown(records, lambda r: r["domain"])
    manifest = state.source.manifest
    return {
        "run_id": run_id,
        "harness_version": pytest_mteval.__version__,
        "timestamp": timestamp,
        "elapsed_seconds": round(elapsed_s, 3),
        "model_slug": config.model or f"method:{state.source.name}",
        "model_id": _reported_model(records),
        "condition": config.condition,
        "temperature": config.temperature,
        "system_prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "system_prompt_used": prompt,
        "coaching_data_sha256": _first_metadata(records, "coaching_data_sha256"),
        "fst_version": scores.get("fst_version"),
        "tools_enabled": sorted(getattr(state.method, "tools_enabled", []) or []),
        "batch_size": settings.batch_size,
        "max_retries": config.max_retries,
        "dataset": {
            "id": corpus.dataset.id,
            "version": corpus.dataset.version,
            "language_pair": corpus.dataset.language_pair,
            "sha256": corpus.sha256,
            "entry_count": len(records),
            "path": str(corpus.path),
            "shape": corpus.shape,
            "mapped_fields": list(corpus.mapped_fields),
            "license": corpus.dataset.license,
            "filters": {
                "segment": list(settings.segments),
                "domain": list(settings.domains),
                "difficulty": list(settings.difficulties),
            },
        },
        "method": {
            "name": state.source.name,
            "manifest": manifest.model_dump(by_alias=True) if manifest else None,
            "dependency_class": manifest.dependency_class if manifest else None,
            "run_config": config.to_json(),
        },
        "method_card": method_card.model_dump(by_alias=True) if method_card else None,
        "signatures": sacre.signatures(),
        "scores": scores,
        "totals": _totals(records, corpus_chars=sum(len(r["source"]) for r in records)),
        "warnings": list(state.warnings),
        "results": [_row(r) for r in sorted(records, key=lambda r: r["index"])],
        "fingerprint": "",
        "run_card_hash": "",
    }


def _row(record: Record) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ResultRow.model_fields)
    row.update((k, v) for k, v in record.items() if k not in _INTERNAL)
    return row


def _system_prompt(state: RunState) -> str:
    method = state.method
    if isinstance(method, DescribesPrompt):
        return method.system_prompt(state.run_config)
    return ""


def _reported_model(records: Sequence[Record]) -> str | None:
    found = _first_metadata(records, "model_id")
    return None if found is None else str(found)


def _first_metadata(records: Sequence[Record], key: str) -> Any:
    for record in records:
        value = (record.get("metadata") or {}).get(key)
        if value:
            return value
    return None


def _totals(records: Sequence[Record], corpus_chars: int) -> dict[str, Any]:
    sums = dict.fromkeys(
        ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"), 0
    )
    for record in records:
        for key in sums:
            sums[key] += int((record.get("usage") or {}).get(key) or 0)
    costs = [r.get("cost_usd") for r in records if r["error"] is None]
    known = [float(c) for c in costs if c is not None]
    total = sum(known) if known and len(known) == len(costs) else None
    return {
        **sums,
        "total_cost_usd": total,
        "cost_per_entry_usd": total / len(records) if total is not None and records else None,
        "cost_per_source_char": total / corpus_chars
        if total is not None and corpus_chars
        else None,
    }
