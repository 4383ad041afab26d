"""The run card's schema (benchmark spec §3): the models a card is checked against before it
is sealed and when it is read back, and the spec's own field lists. ``runcard.py`` hashes,
writes, reads and verifies cards against these."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from pytest_mteval.corpus import ReferenceQuality
from pytest_mteval.metrics.entry_record import ResultRow


class DatasetRef(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    version: str
    language_pair: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    entry_count: int = Field(ge=0)
    #: The corpus envelope's ``reference_quality``, when it has one (issue 15).
    reference_quality: ReferenceQuality | None = None


class Interval(BaseModel):
    """A bootstrap interval (``scoring/bootstrap.py`` ``Interval``): numbers, read and
    formatted by every report."""

    model_config = ConfigDict(extra="allow")
    score: float | None = None
    lower: float | None = None
    upper: float | None = None
    n_bootstrap: int | None = None
    seed: int | None = None
    confidence: float | None = None


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
    #: Each segment's own scores (``cards/build.py`` ``segment_scores``), ranked apart.
    by_segment: dict[str, Any] = Field(default_factory=dict)
    plugin_metrics: dict[str, dict[str, Any]] = Field(default_factory=dict)
    scoring_profile: str | None = None
    composite_metrics: list[str] | None = None
    quality_tier: str | None = None
    quality_tier_uncapped: str | None = None
    cost_adjusted: float | None = None
    #: Share of the outputs long enough to judge that are in another language (guards.py).
    wrong_language_rate: float | None = None
    confidence_intervals: dict[str, Interval] | None = None


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


class Flag(BaseModel):
    """A finding about the run as a whole (``scoring/guards.py``, the audit, the harness)."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    entry_ids: list[str] = Field(default_factory=list)


class DistributionCode(BaseModel):
    """The installed distribution's files under the code rule (``methods/code_hash.py``)."""

    model_config = ConfigDict(extra="allow")
    name: str
    version: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    files: int = Field(ge=0)
    bytes: int = Field(ge=0)
    missing: int = Field(ge=0)


class CodeHash(BaseModel):
    """The method's code as it ran (``methods/code_hash.py``): the folder's hash, null for a
    method without one, and its distribution's for a method named by an installed package.
    Absent from cards made before it existed: they verify, but a bundle of one is refused."""

    model_config = ConfigDict(extra="allow")
    rule: str
    sha256: str | None = Field(pattern=r"^[0-9a-f]{64}$")
    files: int = Field(ge=0)
    bytes: int = Field(ge=0)
    distribution: DistributionCode | None = None


class MethodInfo(BaseModel):
    """The method that ran: its name, manifest, code hash, run configuration and its own card
    fields."""

    model_config = ConfigDict(extra="allow")
    name: str
    manifest: dict[str, Any] | None = None
    code: CodeHash | None = None
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


class SegmentCoverage(BaseModel):
    """How much of one segment the run covered (``cards/coverage.py``)."""

    model_config = ConfigDict(extra="allow")
    complete: bool
    entries_run: int = Field(ge=0)
    entries_in_segment: int = Field(ge=0)


class Coverage(BaseModel):
    """How much of the corpus the run covered, and why not all of it: ``complete`` over the
    segments it ran (``cards/coverage.py``)."""

    model_config = ConfigDict(extra="allow")
    complete: bool
    entries_run: int = Field(ge=0)
    entries_in_corpus: int = Field(ge=0)
    reasons: list[str] = Field(default_factory=list)
    # Absent from older cards (whose ``complete`` meant the whole corpus).
    whole_corpus: bool | None = None
    segments: dict[str, SegmentCoverage] = Field(default_factory=dict)


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

    def extra(self, key: str) -> Any:
        """A key beyond the schema (``method_card``, a hook's, an older card's), or None."""
        return (self.model_extra or {}).get(key)


def score(scores: Scores, name: str) -> Any:
    """The score a metric's name (from the catalog) names, or None when the card has none:
    the schema's field, or a plugin's key beyond it."""
    return getattr(scores, name, None)
