"""Assemble the run card of a finished run from its records (controller only)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Final, TypeVar

from pytest_mteval.cards.card_model import SPEC_SCORES
from pytest_mteval.cards.exposure import exposure_record
from pytest_mteval.cards.run_fingerprint import identity_fields, system_prompt
from pytest_mteval.corpus import Dataset
from pytest_mteval.llm.cost import run_totals
from pytest_mteval.methods.harness_manifest import shim_note
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.catalog import family_definitions
from pytest_mteval.metrics.entry_record import EntryRecord, record_index, record_warnings
from pytest_mteval.metrics.semantic import SEMANTIC_FAMILY, semantic_verdict
from pytest_mteval.run.entry_selection import segments_record
from pytest_mteval.run.method_args import public_config, secret_names
from pytest_mteval.run.result_model import validate_method_fields
from pytest_mteval.run.run_state import RunState
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.aggregate import (
    breakdown,
    definition_scores,
    quality_scores,
    speed_scores,
)
from pytest_mteval.scoring.guards import Flag, cap_tier
from pytest_mteval.scoring.run_judgement import group_composite, judge_run, statistics_of

#: Hallucination findings across entries: evidence for the card, not scores.
_HALLUCINATION_EVIDENCE: Final = (
    "hallucination_entries",
    "hallucination_reasons",
    "same_output_for_different_sources",
    "another_entrys_reference",
)
_BREAKDOWNS: Final = (
    ("by_difficulty", "difficulty"),
    ("by_provenance", "provenance"),
    ("by_domain", "domain"),
)


def build_card(
    state: RunState,
    records: Sequence[EntryRecord],
    run_id: str,
    timestamp: str,
    elapsed_s: float,
    method_card: MethodCard | None,
) -> dict[str, Any]:
    settings, corpus, config = state.settings, state.corpus, state.run_config
    warnings = [w for r in records for w in record_warnings(r)]
    if any(m.name == SEMANTIC_FAMILY for m in state.builtin_metrics):
        for record in records:  # spec §3.7's LYSS-sem verdict, when the semantic score ran
            record["semantic_verdict"] = semantic_verdict(record)
    prompt = _guarded(warnings, "system_prompt", "", lambda: system_prompt(state))
    identity = identity_fields(state, prompt)
    no_fields: dict[str, Any] = {}
    no_tools: list[str] = []
    method_fields = _guarded(warnings, "run_card_fields", no_fields, lambda: _method_fields(state))
    scores: dict[str, Any] = dict.fromkeys(SPEC_SCORES)  # null where not measured
    scores.update(quality_scores(records), **speed_scores(records, elapsed_s))
    for metric in state.builtin_metrics:
        scores.update(metric.aggregate(records))
    hallucination = {key: scores.pop(key) for key in _HALLUCINATION_EVIDENCE if key in scores}
    scores["plugin_metrics"] = {m.name: m.aggregate(records) for m in state.plugin_metrics}
    for metric in state.plugin_metrics:
        scores.update(definition_scores(records, family_definitions(metric)))
    totals = run_totals(records)
    profile = scoring.profile_for(any(m.name == "fst" for m in state.builtin_metrics))
    flagged = frozenset(hallucination.get("hallucination_entries") or ())
    statistics = statistics_of(records, scores, profile, flagged)
    judged, flags = judge_run(
        records,
        scores,
        profile,
        statistics,
        totals["cost_per_entry_usd"],
        target_language=corpus.dataset.target_language,
    )
    scores.update(judged)
    position = {r["entry_id"]: i for i, r in enumerate(records)}

    def group_extra(group: Sequence[EntryRecord]) -> dict[str, Any]:
        rows = [position[r["entry_id"]] for r in group]
        return {"composite": group_composite(statistics, rows, profile)}

    for name, field in _BREAKDOWNS:
        scores[name] = breakdown(records, lambda r, field=field: r[field], group_extra)  # type: ignore[misc]
    scores["by_segment"] = segment_scores(records, scores, statistics, profile, flags)
    manifest = state.source.manifest
    return {
        "run_id": run_id,
        "harness_version": identity["harness_version"],
        "timestamp": timestamp,
        "elapsed_seconds": round(elapsed_s, 3),
        "model_slug": identity["model_slug"],
        "model_id": _reported_model(records),
        "condition": identity["condition"],
        "temperature": identity["temperature"],
        "system_prompt_sha256": identity["system_prompt_sha256"],
        "system_prompt_used": prompt,
        "coaching_data_sha256": _first_metadata(records, "coaching_data_sha256"),
        "fst_version": scores.get("fst_version"),
        "tools_enabled": _guarded(warnings, "tools_enabled", no_tools, lambda: _tools(state)),
        "batch_size": identity["batch_size"],
        "max_retries": method_fields.get("max_retries", config.max_retries),
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
            "segments": segments_record(
                corpus, (r.get("segment") for r in records), settings.activate_held_out
            ),
            **_reference_quality(corpus.dataset),
        },
        "method": {
            "name": state.source.name,
            "manifest": manifest.model_dump(by_alias=True) if manifest else None,
            "code": state.source.code,
            "dependency_class": manifest.dependency_class if manifest else None,
            "exposure": exposure_record(manifest),
            "run_config": public_config(config, secret_names(manifest)).to_json(),
            "fields": method_fields,
            **shim_note(manifest.model_extra if manifest else None),
        },
        "method_card": method_card.model_dump(by_alias=True) if method_card else None,
        "signatures": sacre.signatures(),
        "scores": scores,
        "flags": flags,
        "hallucination": hallucination,
        "totals": totals,
        "warnings": warnings,
        # only when a metric asked for by name could not run: other cards stay as they were
        **(
            {"metrics_not_computed": state.metrics_not_computed}
            if state.metrics_not_computed
            else {}
        ),
        # the kept records are the rows (run/kept_record.py): one dict per entry, not two
        "results": sorted(records, key=record_index),
        "fingerprint": "",
        "run_card_hash": "",
    }


def segment_scores(
    records: Sequence[EntryRecord],
    scores: Mapping[str, Any],
    statistics: Mapping[str, stats.Statistic],
    profile: str,
    flags: Sequence[Flag],
) -> dict[str, dict[str, Any]]:
    """Each segment's own scores (spec §6.4: a gold-standard score is official, the others
    are development scores): counts, chrF++, exact match, composite, its interval and tier.

    A run of one segment repeats the run's figures; a run mixing segments is ranked per
    segment on these (``reports/segment_views.py``).
    """
    position = {r["entry_id"]: i for i, r in enumerate(records)}
    out: dict[str, dict[str, Any]] = {}
    groups = breakdown(records, lambda r: r.get("segment"))
    whole = (scores.get("confidence_intervals") or {}).get("composite")
    for segment, group in groups.items():
        if len(groups) == 1:
            composite, interval = scores.get("composite"), whole
        else:
            rows = [position[r["entry_id"]] for r in records if _segment(r) == segment]
            composite = group_composite(statistics, rows, profile)
            interval = _segment_interval(statistics, rows, profile)
        tier = cap_tier(scoring.quality_tier(composite), flags)
        out[segment] = {
            **group,
            "composite": composite,
            "composite_interval": interval,
            "quality_tier": scoring.labelled_tier(tier, human_validated=False),
        }
    return out


def _segment(record: EntryRecord) -> str:
    found = record.get("segment")
    return "unknown" if found is None else str(found)


def _segment_interval(
    statistics: Mapping[str, stats.Statistic], rows: Sequence[int], profile: str
) -> dict[str, Any] | None:
    """The composite's bootstrap interval over one segment's entries, as the run's is made."""
    kept = {name: stats.Statistic(s.rows[list(rows)], s.finalize) for name, s in statistics.items()}
    if not kept:
        return None
    found = stats.confidence_intervals(
        kept, {"composite": partial(scoring.composite, profile=profile)}
    )
    return dict(found["composite"])


T = TypeVar("T")


def _guarded(warnings: list[str], what: str, fallback: T, call: Callable[[], T]) -> T:
    """What the method reports about itself; its failure must not cost the run its card."""
    try:
        return call()
    except Exception as exc:
        warnings.append(f"method {what}() failed: {type(exc).__name__}: {exc}")
        return fallback


def _tools(state: RunState) -> list[str]:
    tools = getattr(state.method, "tools_enabled", None) or []
    return sorted(validate_method_fields(state.source.name, "", tools, {}).tools_enabled)


def _method_fields(state: RunState) -> dict[str, Any]:
    """What a method itself reports for the card (``run_card_fields(config)``), if anything."""
    fields = getattr(state.method, "run_card_fields", None)
    found = fields(state.run_config) if callable(fields) else {}
    return dict(validate_method_fields(state.source.name, "", [], found).run_card_fields)


def _reference_quality(dataset: Dataset) -> dict[str, Any]:
    """The envelope's ``reference_quality`` for the card's dataset block, only when given (cards
    of corpora without it stay as they were)."""
    quality = dataset.reference_quality
    return {} if quality is None else {"reference_quality": quality.model_dump()}


def _reported_model(records: Sequence[EntryRecord]) -> str | None:
    found = _first_metadata(records, "model_id")
    return None if found is None else str(found)


def _first_metadata(records: Sequence[EntryRecord], key: str) -> Any:
    for record in records:
        value = (record.get("metadata") or {}).get(key)
        if value:
            return value
    return None
