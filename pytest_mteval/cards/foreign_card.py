"""Run cards written by the reference harness (its ``publish.assemble_run_card``): recognised,
verified by their own rules, and made comparable with ours on run-level scores.

Such a card has no per-entry ``results``, a boolean ``tools_enabled`` and ``fingerprint`` as an
object ``{hash, components}``. Its ``run_card_hash`` is ours (sha256 of the card as
``json.dumps(sort_keys=True, ensure_ascii=False)`` with the hash emptied: ``runcard.card_hash``
reproduces it); its fingerprint hash is sha256 of ``json.dumps(components, sort_keys=True)``,
and each component must be the card's own field. Its scores come from that harness's metric
code: they are compared at the run level only (no entry to pair, no significance test), and its
composite, made by another formula, is kept as reported while ours is recomputed from its
metrics.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.metrics import catalog
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.comparable_run import Comparable

ORIGIN: Final = "foreign card (reference harness)"
#: The components its fingerprint names, and where the card holds each.
_COMPONENTS: Final = {
    "dataset_sha256": ("dataset", "sha256"),
    "model_slug": ("model_slug",),
    "condition": ("condition",),
    "system_prompt_sha256": ("system_prompt_sha256",),
    "temperature": ("temperature",),
    "batch_size": ("batch_size",),
    "tools_enabled": ("tools_enabled",),
    "harness_version": ("harness_version",),
}
_REQUIRED: Final = {
    "run_id": str,
    "harness_version": str,
    "timestamp": str,
    "model_slug": str,
    "condition": str,
    "dataset": dict,
    "scores": dict,
    "run_card_hash": str,
}


def is_foreign_card(raw: Mapping[str, Any]) -> bool:
    """A reference-harness run card: a hash, a fingerprint object and no per-entry results."""
    fingerprint = raw.get("fingerprint")
    return (
        "results" not in raw
        and isinstance(raw.get("run_card_hash"), str)
        and isinstance(fingerprint, dict)
        and "components" in fingerprint
    )


def verify_foreign_card(card: Mapping[str, Any], path: Path) -> None:
    """Its fields, its run_card_hash and its fingerprint; RunCardError with the first problem."""
    for name, kind in _REQUIRED.items():
        if not isinstance(card.get(name), kind):
            raise runcard.RunCardError(
                f"{path}: foreign card: field {name!r} must be {_kind(kind)}"
            )
    dataset: Mapping[str, Any] = card["dataset"]
    for name in ("id", "version", "sha256"):
        if not isinstance(dataset.get(name), str):
            raise runcard.RunCardError(f"{path}: foreign card: field 'dataset.{name}' must be text")
    if not isinstance(dataset.get("language_pair"), str | None):
        raise runcard.RunCardError(
            f"{path}: foreign card: field 'dataset.language_pair' must be text when given"
        )
    count = dataset.get("entry_count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        raise runcard.RunCardError(
            f"{path}: foreign card: field 'dataset.entry_count' must be a whole number >= 0"
        )
    if runcard.card_hash(card) != card["run_card_hash"]:
        raise runcard.RunCardError(f"{path}: run_card_hash does not match the content (edited?)")
    fingerprint: Mapping[str, Any] = card["fingerprint"]
    components = fingerprint.get("components")
    if not isinstance(components, dict) or set(components) != set(_COMPONENTS):
        raise runcard.RunCardError(
            f"{path}: foreign card: fingerprint.components must name {', '.join(_COMPONENTS)}"
        )
    encoded = json.dumps(components, sort_keys=True).encode("utf-8")
    if hashlib.sha256(encoded).hexdigest() != fingerprint.get("hash"):
        raise runcard.RunCardError(f"{path}: fingerprint hash does not match its components")
    for name, where in _COMPONENTS.items():
        value: Any = card
        for key in where:
            value = value.get(key) if isinstance(value, dict) else None
        if components[name] != value:
            raise runcard.RunCardError(
                f"{path}: fingerprint component {name!r} is {components[name]!r}, but the "
                f"card's {'.'.join(where)} is {value!r}"
            )


def foreign_metrics(card: Mapping[str, Any]) -> dict[str, float | None]:
    """Its run-level scores under our metric names (its corpus BLEU sits beside the scores)."""
    scores: Mapping[str, Any] = card.get("scores") or {}
    metrics = {name: _number(scores.get(name)) for name in catalog.names()}
    if metrics.get("bleu") is None:
        metrics["bleu"] = _number(card.get("corpus_bleu"))
    return metrics


def foreign_composite(card: Mapping[str, Any]) -> float | None:
    """Our composite (profile B) over the metrics it reports."""
    return scoring.composite(foreign_metrics(card), scoring.PROFILE_B)


def foreign_comparable(card: Mapping[str, Any], path: str) -> Comparable:
    """A verified foreign card as a Comparable of run-level scores only."""
    scores: Mapping[str, Any] = card.get("scores") or {}
    return Comparable(
        path=path,
        origin=ORIGIN,
        label=str(card.get("model_slug") or "?"),
        dataset_sha256=(card.get("dataset") or {}).get("sha256"),
        profile=scoring.PROFILE_B,
        metrics=foreign_metrics(card),
        composite=foreign_composite(card),
        rows={},
        run_card_hash=card.get("run_card_hash"),
        reported_only={"composite": scores.get("composite")},
        notes=[
            f"{path} is a {ORIGIN}: run-level scores only, from its own metric code; compared "
            "without pairing entries or testing significance"
        ],
        aggregate_only=True,
    )


def _kind(kind: type) -> str:
    return "text" if kind is str else "an object"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
