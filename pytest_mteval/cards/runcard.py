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
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final, NotRequired

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

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
    # Beyond the spec, written by this harness (absent from older cards).
    plugin_metrics: dict[str, dict[str, Any]] = Field(default_factory=dict)
    scoring_profile: str | None = None
    composite_metrics: list[str] | None = None
    quality_tier: str | None = None
    quality_tier_uncapped: str | None = None
    cost_adjusted: float | None = None
    confidence_intervals: dict[str, dict[str, Any]] | None = None


#: The spec's scores (§3.4, §3.6): null on a card where not measured.
SPEC_SCORES: Final = (
    *("total", "errors", "exact_matches", "exact_match_rate", "equivalent_matches"),
    *("equivalent_match_rate", "fst_accepted", "fst_acceptance_rate", "morphological_accuracy"),
    *("chrf_plus_plus", "bleu", "semantic_score", "ter", "length_ratio", "code_switching_rate"),
    *("hallucination_rate", "terminology_adherence", "tokens_per_second", "entries_per_minute"),
    *("composite", "avg_latency_seconds", "median_latency_seconds", "p95_latency_seconds"),
    *("by_difficulty", "by_provenance", "by_domain"),
)


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


class ResultRow(TypedDict):
    """spec §3.7, one per evaluated entry: an entry record (``metrics/record.py``) without its
    internal keys. A TypedDict, not a model: a card may have 100,000 rows, and validating
    them as dicts costs a third of building a model per row."""

    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]  # kept, unchecked
    entry_id: str
    source: str | None  # null on a secret run's card (run/redaction.py)
    expected: str | None
    raw_predicted: NotRequired[str | None]
    predicted: str | None
    segment: NotRequired[str | None]
    difficulty: NotRequired[int | str | None]
    domain: NotRequired[str | None]
    exact_match: bool | None
    chrf_score: float | None
    bleu_score: float | None
    latency_s: NotRequired[float | None]
    cost_usd: NotRequired[float | None]
    tool_call_count: NotRequired[int]
    error: str | None
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


#: The spec's row fields: null on a card's row where the entry has no value.
SPEC_ROW: Final = (
    *("entry_id", "source", "expected", "raw_predicted", "predicted", "segment"),
    *("difficulty", "domain", "exact_match", "chrf_score", "bleu_score", "latency_s"),
    *("cost_usd", "tool_call_count", "error", "plugin_metrics", "fst_valid"),
    *("equivalent_match", "semantic_verdict", "code_switching_detected"),
    "hallucination_detected",
)


class Flag(BaseModel):
    """A finding about the run as a whole (``scoring/guards.py``, the audit, the harness)."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    entry_ids: list[str] = Field(default_factory=list)


class MethodInfo(BaseModel):
    """The method that ran: its name, manifest, run configuration and its own card fields."""

    model_config = ConfigDict(extra="allow")
    name: str
    manifest: dict[str, Any] | None = None
    dependency_class: str | None = None
    run_config: dict[str, Any] = Field(default_factory=dict)
    fields: dict[str, Any] = Field(default_factory=dict)


class GateRecord(BaseModel):
    """The session gate's inputs and verdict (``cards/gate.py`` ``GateVerdict.to_json``)."""

    model_config = ConfigDict(extra="allow")
    passed: bool
    baseline: str | None = None
    baseline_run_card_hash: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    common_entries: int = 0
    shared_metrics: list[str] = Field(default_factory=list)
    metrics: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    baseline_note: str = ""


class Coverage(BaseModel):
    """How much of the corpus the run covered, and why not all of it."""

    model_config = ConfigDict(extra="allow")
    complete: bool
    entries_run: int = Field(ge=0)
    entries_in_corpus: int = Field(ge=0)
    reasons: list[str] = Field(default_factory=list)


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
    # Beyond the spec, written by this harness (absent from older cards).
    method: MethodInfo | None = None
    # method_card (methods/manifest.py MethodCard, or null) is checked where it is made
    signatures: dict[str, Any] | None = None  # sacrebleu's signature of each metric
    flags: list[Flag] | None = None
    hallucination: dict[str, Any] | None = None
    warnings: list[str] | None = None
    complete: bool | None = None
    incomplete_reason: str | None = None
    gate: GateRecord | None = None
    cache: dict[str, Any] | None = None
    coverage: Coverage | None = None
    runner: dict[str, Any] | None = None
    interrupted: bool | None = None


def check_before_sealing(card: Mapping[str, Any]) -> None:
    """Refuse a card that does not match its own schema, before it is hashed and written.

    Strict: a score that is text or true/false where a number belongs is a bug in whatever
    wrote it (a metric, a method's card fields, a plugin's hook), never converted. Raises
    RunCardError with one line naming the field.
    """
    try:
        complete = {**card, "fingerprint": fingerprint(card)}
    except (KeyError, TypeError) as exc:
        raise RunCardError(f"run card refused: fingerprint component missing: {exc}") from None
    try:
        _validate_in_parts(complete)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        got = type(err["input"]).__name__
        raise RunCardError(f"run card refused: field {where!r}: {err['msg']} (got {got})") from None


#: Result rows validated at once: a validated copy of every row of a 100,000-entry card would
#: cost about 100 MB more at the end of the run.
_ROWS_AT_ONCE: Final = 2_000
_ROWS: Final = TypeAdapter(list[ResultRow])


def _validate_in_parts(card: Mapping[str, Any]) -> None:
    """``RunCard.model_validate(card, strict=True)``, the result rows a block at a time.

    Only a card that fails is validated whole again, so the error reported is the one the
    whole validation reports first, exactly as before.
    """
    rows = card.get("results")
    if not isinstance(rows, list) or len(rows) <= _ROWS_AT_ONCE:
        RunCard.model_validate(card, strict=True)
        return
    try:
        RunCard.model_validate({**card, "results": []}, strict=True)
        for start in range(0, len(rows), _ROWS_AT_ONCE):
            _ROWS.validate_python(rows[start : start + _ROWS_AT_ONCE], strict=True)
    except ValidationError:
        RunCard.model_validate(card, strict=True)  # names the first error, as it always has
        raise


def not_json(value: Any, where: str = "") -> str | None:
    """Where ``value`` first holds something JSON cannot encode (a set, an object, NaN...), as
    a dotted path; None when all of it is plain JSON. For the message only: it walks the card."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where or 'the card'} (a key of type {type(key).__name__})"
            found = not_json(item, f"{where}.{key}" if where else key)
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = not_json(item, f"{where}.{index}")
            if found is not None:
                return found
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if value is None or isinstance(value, str | int | float):
        return None
    return where


def fingerprint(card: Mapping[str, Any]) -> str:
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


def card_hash(card: Mapping[str, Any]) -> str:
    unsealed = {**card, "run_card_hash": ""}
    unsealed.pop("signature", None)
    digest = hashlib.sha256()
    for chunk in canonical_chunks(unsealed):
        digest.update(chunk.encode("utf-8"))
    return digest.hexdigest()


def canonical_chunks(card: Mapping[str, Any]) -> Iterator[str]:
    """``json.dumps(card, sort_keys=True, ensure_ascii=False)`` in pieces, one top-level value
    or one result row at a time, so a 100,000-row card is never one string in memory.

    Joined, the pieces are exactly that string: default separators, keys sorted at every level
    (the C encoder sorts each row). A card whose top-level keys are not all strings is encoded
    in one piece, so the encoder converts and sorts them as it always has.
    """
    dump = partial(json.dumps, sort_keys=True, ensure_ascii=False)
    if not all(isinstance(key, str) for key in card):
        yield dump(card)
        return
    yield "{"
    for position, key in enumerate(sorted(card)):
        value = card[key]
        yield f"{', ' if position else ''}{dump(key)}: "
        if key == "results" and isinstance(value, list) and value:
            yield "["
            for index, row in enumerate(value):
                yield f", {dump(row)}" if index else dump(row)
            yield "]"
        else:
            yield dump(value)
    yield "}"


def seal(card: dict[str, Any]) -> dict[str, Any]:
    """Set fingerprint and hash; the card must not change afterwards."""
    card["fingerprint"] = fingerprint(card)
    card["run_card_hash"] = card_hash(card)
    return card


def render(card: Mapping[str, Any]) -> bytes:
    """The card as UTF-8 JSON, one top-level key and one result row per line.

    Readable with ``less`` and diffable line by line, yet written by the C JSON encoder (an
    ``indent`` makes the json module fall back to pure Python: seconds on 10,000 entries).
    """
    return b"".join(rendered_chunks(card))


def rendered_chunks(card: Mapping[str, Any]) -> Iterator[bytes]:
    """``render(card)`` in pieces (one top-level key or one result row each), for writing a
    large card without holding all of it as text. Encoding errors (NaN, a set) surface before
    the first piece of the value that holds them is yielded."""
    dump = partial(json.dumps, ensure_ascii=False, allow_nan=False)
    yield b"{\n"
    for position, (key, value) in enumerate(card.items()):
        lead = ",\n" if position else ""
        if key == "results" and isinstance(value, list) and value:
            yield f'{lead}  "results": [\n    '.encode()
            for index, row in enumerate(value):
                yield (f",\n    {dump(row)}" if index else dump(row)).encode("utf-8")
            yield b"\n  ]"
        else:
            yield f"{lead}  {dump(key)}: {dump(value)}".encode()
    yield b"\n}\n"


def write_new(card: dict[str, Any], path: Path) -> Path:
    """Write atomically to ``path``, or to a sibling named after the run when ``path`` exists.

    A run card is never overwritten: it may be the only record of a paid run.
    """
    tmp = _synced_temp_file(rendered_chunks(card), path.parent)
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


def replace(card: Mapping[str, Any], path: Path) -> None:
    """Atomically replace ``path`` (for updating a baseline on purpose)."""
    os.replace(_synced_temp_file(rendered_chunks(card), path.parent), path)


def _synced_temp_file(chunks: Iterable[bytes], folder: Path) -> str:
    """A temporary file in ``folder`` (same filesystem, so linking or renaming is atomic),
    removed again if encoding a chunk fails half-way."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".runcard-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(chunks)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
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
