"""The run card (benchmark spec §3): its schema, fingerprint and hash, and how it is written,
read and verified.

Encodings, fixed so anyone can re-check a card without this code:
- fingerprint = sha256 of the UTF-8 bytes of ``json.dumps([dataset.sha256, model_slug,
  condition, system_prompt_sha256, temperature, harness_version, batch_size,
  sorted(tools_enabled)], ensure_ascii=False, separators=(",", ":"))`` (spec §3.8's eight
  components in the spec's order, as a JSON array so no separator can be ambiguous);
- run_card_hash = sha256 of the UTF-8 bytes of ``json.dumps(card, sort_keys=True,
  ensure_ascii=False)`` with ``run_card_hash`` set to "" (spec §3.9) and without the
  ``signature`` key, which is added after sealing (``cards/signing.py``); a card without a
  signature hashes exactly as before signatures existed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_mteval.corpus import ReferenceQuality
from pytest_mteval.errors import MtevalError, read_json


class RunCardError(MtevalError):
    """A run card that cannot be read or does not verify; the message is one line."""


class DatasetRef(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    version: str
    language_pair: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    entry_count: int = Field(ge=0)
    #: The corpus envelope's ``reference_quality``, when it has one (issue 15).
    reference_quality: ReferenceQuality | None = None


class Scores(BaseModel):
    """spec §3.4 and §3.6; null where not measured."""

    model_config = ConfigDict(extra="allow")
    total: int
    errors: int
    exact_matches: int
    exact_match_rate: float | None
    equivalent_matches: int | None = None
    equivalent_match_rate: float | None = None
    fst_accepted: int | None = None
    fst_acceptance_rate: float | None = None
    morphological_accuracy: float | None = None
    chrf_plus_plus: float | None
    bleu: float | None = None
    semantic_score: float | None = None
    ter: float | None = None
    length_ratio: float | None = None
    code_switching_rate: float | None = None
    hallucination_rate: float | None = None
    terminology_adherence: float | None = None
    tokens_per_second: float | None = None
    entries_per_minute: float | None = None
    composite: float | None = None
    avg_latency_seconds: float | None = None
    median_latency_seconds: float | None = None
    p95_latency_seconds: float | None = None
    by_difficulty: dict[str, Any] = Field(default_factory=dict)
    by_provenance: dict[str, Any] = Field(default_factory=dict)
    by_domain: dict[str, Any] = Field(default_factory=dict)


class Totals(BaseModel):
    """spec §3.5."""

    model_config = ConfigDict(extra="allow")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    total_cost_usd: float | None = None
    cost_per_entry_usd: float | None = None
    cost_per_source_char: float | None = None


class ResultRow(BaseModel):
    """spec §3.7, one per evaluated entry."""

    model_config = ConfigDict(extra="allow")
    entry_id: str
    source: str | None  # null on a secret run's card (run/redaction.py)
    expected: str | None
    raw_predicted: str | None = None
    predicted: str | None
    segment: str | None = None
    difficulty: int | str | None = None
    domain: str | None = None
    exact_match: bool | None
    chrf_score: float | None
    bleu_score: float | None
    latency_s: float | None = None
    cost_usd: float | None = None
    tool_call_count: int = 0
    error: str | None
    plugin_metrics: dict[str, Any] = Field(default_factory=dict)
    fst_valid: bool | None = None
    equivalent_match: bool | None = None
    semantic_verdict: str | None = None
    code_switching_detected: bool | None = None
    hallucination_detected: bool | None = None


class HumanValidation(BaseModel):
    """spec §7.3: bilingual reviewers' ratings of a sample of the card's outputs, added by
    ``mteval review ingest``; ``extends`` names the automated card (pytest_mteval/review)."""

    model_config = ConfigDict(extra="allow")
    extends: dict[str, Any]
    sample: dict[str, Any]
    reviewers: list[dict[str, Any]]
    ratings: dict[str, int]
    agreement: dict[str, Any]
    meets_threshold: bool


class RunCard(BaseModel):
    """The whole card; unknown keys are kept (hooks may extend a card)."""

    model_config = ConfigDict(extra="allow")
    run_id: str
    harness_version: str
    timestamp: str
    elapsed_seconds: float = Field(ge=0)
    model_slug: str
    model_id: str | None = None
    condition: str
    temperature: float
    system_prompt_sha256: str
    system_prompt_used: str
    coaching_data_sha256: str | None = None
    fst_version: str | None = None
    tools_enabled: list[str] = Field(default_factory=list)
    batch_size: int | None = None
    max_retries: int | None = None
    dataset: DatasetRef
    scores: Scores
    totals: Totals
    results: list[ResultRow]
    fingerprint: str = Field(pattern=r"^[0-9a-f]{64}$")
    run_card_hash: str
    human_validation: HumanValidation | None = None


def fingerprint(card: dict[str, Any]) -> str:
    components = [
        card["dataset"]["sha256"],
        card["model_slug"],
        card["condition"],
        card["system_prompt_sha256"],
        card["temperature"],
        card["harness_version"],
        card["batch_size"],
        sorted(card.get("tools_enabled") or []),
    ]
    encoded = json.dumps(components, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def card_hash(card: dict[str, Any]) -> str:
    unsealed = {**card, "run_card_hash": ""}
    unsealed.pop("signature", None)
    encoded = json.dumps(unsealed, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def seal(card: dict[str, Any]) -> dict[str, Any]:
    """Set fingerprint and hash; the card must not change afterwards."""
    card["fingerprint"] = fingerprint(card)
    card["run_card_hash"] = card_hash(card)
    return card


def render(card: dict[str, Any]) -> bytes:
    """The card as UTF-8 JSON, one top-level key and one result row per line.

    Readable with ``less`` and diffable line by line, yet written by the C JSON encoder (an
    ``indent`` makes the json module fall back to pure Python: seconds on 10,000 entries).
    """
    dump = partial(json.dumps, ensure_ascii=False, allow_nan=False)
    lines = []
    for key, value in card.items():
        if key == "results" and isinstance(value, list) and value:
            rows = ",\n    ".join(dump(row) for row in value)
            lines.append(f'  "results": [\n    {rows}\n  ]')
        else:
            lines.append(f"  {dump(key)}: {dump(value)}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")


def write_new(card: dict[str, Any], path: Path) -> Path:
    """Write atomically to ``path``, or to a sibling named after the run when ``path`` exists.

    A run card is never overwritten: it may be the only record of a paid run.
    """
    tmp = _synced_temp_file(render(card), path.parent)
    try:
        for candidate in (path, path.with_name(f"{path.stem}-{card['run_id'][:8]}{path.suffix}")):
            try:
                os.link(tmp, candidate)  # fails instead of replacing an existing file
                return candidate
            except FileExistsError:
                continue
        raise RunCardError(f"{path}: exists, and so does the fallback name; card not written")
    finally:
        os.unlink(tmp)


def replace(card: dict[str, Any], path: Path) -> None:
    """Atomically replace ``path`` (for updating a baseline on purpose)."""
    os.replace(_synced_temp_file(render(card), path.parent), path)


def _synced_temp_file(data: bytes, folder: Path) -> str:
    """A temporary file in ``folder`` (same filesystem, so linking or renaming is atomic)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".runcard-", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return tmp


def load(path: Path) -> dict[str, Any]:
    """Read a card as JSON, with a one-line reason on failure."""
    raw = read_json(path, "run card", RunCardError)
    if not isinstance(raw, dict):
        raise RunCardError(f"{path}: a run card is a JSON object")
    return raw


def verify(card: dict[str, Any], path: Path) -> None:
    """Check schema, fingerprint and hash; raise RunCardError with the first problem."""
    try:
        RunCard.model_validate(card)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise RunCardError(f"{path}: schema: field {where!r}: {err['msg']}") from None
    if card_hash(card) != card["run_card_hash"]:
        raise RunCardError(f"{path}: run_card_hash does not match the content (edited?)")
    try:
        recomputed = fingerprint(card)
    except (KeyError, TypeError) as exc:  # batch_size may be absent from a valid schema
        raise RunCardError(f"{path}: fingerprint component missing: {exc}") from None
    if recomputed != card["fingerprint"]:
        raise RunCardError(f"{path}: fingerprint does not match its eight components")


def json_schema() -> dict[str, Any]:
    return RunCard.model_json_schema()
