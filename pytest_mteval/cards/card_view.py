"""What the reports and the leaderboard read of a run card, typed, from either kind of card.

Ours is read as the :class:`~pytest_mteval.cards.card_model.RunCard` model and viewed by
:func:`view_of`. The reference harness's cards and run reports (``foreign_view.py``) cannot
honestly validate as a RunCard (no system prompt, no fingerprint of ours, no exact-match
count; a report records no corpus hash), so both kinds are read through this view instead:
the run's identity, its method as shown, its dataset, scores, gate, flags and the marker of a
foreign file. Every field is what the card says, or None where it says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pytest_mteval.cards.card_model import (
    Coverage,
    Flag,
    GateRecord,
    Interval,
    MethodInfo,
    RunCard,
    Totals,
)
from pytest_mteval.corpus import ReferenceQuality
from pytest_mteval.metrics.entry_record import ResultRow


class ShownScores(BaseModel):
    """A card's scores as pages show them: our card's ``Scores`` or a foreign file's, re-scored
    by our code where it can be. A metric of the catalog beyond these is read by ``value``."""

    model_config = ConfigDict(extra="allow", frozen=True)
    total: int | None = None
    errors: int | None = None
    chrf_plus_plus: float | None = None
    exact_match_rate: float | None = None
    fst_acceptance_rate: float | None = None
    semantic_score: float | None = None
    composite: float | None = None
    scoring_profile: str | None = None
    composite_metrics: list[str] | None = None
    quality_tier: str | None = None
    quality_tier_uncapped: str | None = None
    cost_adjusted: float | None = None
    avg_latency_seconds: float | None = None
    median_latency_seconds: float | None = None
    p95_latency_seconds: float | None = None
    confidence_intervals: dict[str, Interval] | None = None
    by_difficulty: dict[str, Any] = Field(default_factory=dict)
    by_provenance: dict[str, Any] = Field(default_factory=dict)
    by_domain: dict[str, Any] = Field(default_factory=dict)
    #: A foreign card's own composite, made by its harness's formula (ours is ``composite``).
    reported_composite: float | None = None

    def value(self, name: str) -> Any:
        """The score ``name`` (a metric of the catalog, or a field above), None when absent."""
        return getattr(self, name, None)

    def interval(self, name: str) -> Interval | None:
        """The bootstrap interval of score ``name``, when the card has one."""
        return (self.confidence_intervals or {}).get(name)


@dataclass(frozen=True)
class DatasetView:
    """The corpus a card was scored on; ``sha256`` and ``version`` are "unrecorded" for a
    foreign report, which keeps neither."""

    id: str
    version: str
    language_pair: str
    sha256: str
    entry_count: int
    reference_quality: ReferenceQuality | None = None
    #: The segments the run covered (``dataset.segments.covered``), None when not recorded.
    covered_segments: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ForeignMark:
    """Where a foreign file came from, as every page marks it (``foreign_view.py``)."""

    origin: str
    note: str
    #: A report's own corpus chrF++, which its predictions re-scored by our code agree with.
    reported_chrf: float | None = None


@dataclass(frozen=True)
class CardView:
    """One verified card (ours or foreign) as the terminal summary, ``mteval show``, the HTML
    report and the leaderboard read it."""

    run_id: str
    timestamp: str
    model_slug: str
    model_id: str | None
    condition: str
    #: None for a foreign report, which carries no hash.
    run_card_hash: str | None
    dataset: DatasetView
    method: MethodInfo | None
    scores: ShownScores
    totals: Totals
    results: Sequence[ResultRow]
    flags: tuple[Flag, ...] = ()
    #: The method's public card (``methods/manifest.py`` MethodCard) as written, or None.
    method_card: Mapping[str, Any] | None = None
    gate: GateRecord | None = None
    coverage: Coverage | None = None
    complete: bool | None = None
    interrupted: bool | None = None
    incomplete_reason: str | None = None
    #: The entries the hallucination detector fired on, in the card's order.
    hallucination_entries: tuple[str, ...] = ()
    #: How the run was isolated (``runner.sandbox``, ``runner.isolated``), when recorded.
    runner: Mapping[str, Any] | None = None
    #: The profile a card of before ``scores.scoring_profile`` recorded (``scoring.profile``).
    older_profile: str | None = None
    metrics_not_computed: tuple[str, ...] = ()
    foreign: ForeignMark | None = None
    #: The JSON that signatures, the review chain and reproductions are checked on: our
    #: card's as read; a foreign file's identity and our composite only (``foreign_view.py``),
    #: as it carries none of our signatures, caches, fingerprints or review records.
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def method_name(self) -> str:
        """The method as a report names it: the card's method, else its model."""
        return (self.method.name if self.method is not None else None) or self.model_slug

    @property
    def public(self) -> Mapping[str, Any]:
        return self.method_card or {}

    @property
    def board_name(self) -> str:
        """The method as a board names it: its public card's name first."""
        return str(self.public.get("name") or self.method_name)

    @property
    def dependency_class(self) -> str | None:
        """The method's dependency class (method interface), from the card or its public card."""
        found = (self.method.dependency_class if self.method is not None else None) or (
            self.public.get("dependency_class")
        )
        return str(found) if found else None

    @property
    def method_class(self) -> Any:
        manifest = (self.method.manifest if self.method is not None else None) or {}
        return self.public.get("class") or manifest.get("class")

    @property
    def model(self) -> str:
        """The model as pages name it: its id, else its slug."""
        return self.model_id or self.model_slug


def view_of(card: RunCard, raw: Mapping[str, Any]) -> CardView:
    """Our verified card (``runcard.verify``, or being built: ``runcard.built``) as the view;
    ``raw`` is its JSON, kept for the checks made on it."""
    segments = card.dataset.model_extra.get("segments") if card.dataset.model_extra else None
    covered = segments.get("covered") if isinstance(segments, Mapping) else None
    public = card.extra("method_card")
    older = card.extra("scoring")
    return CardView(
        run_id=card.run_id,
        timestamp=card.timestamp,
        model_slug=card.model_slug,
        model_id=card.model_id,
        condition=card.condition,
        run_card_hash=card.run_card_hash,
        dataset=DatasetView(
            id=card.dataset.id,
            version=card.dataset.version,
            language_pair=card.dataset.language_pair,
            sha256=card.dataset.sha256,
            entry_count=card.dataset.entry_count,
            reference_quality=card.dataset.reference_quality,
            covered_segments=tuple(str(s) for s in covered) if covered is not None else None,
        ),
        method=card.method,
        scores=ShownScores.model_validate(card.scores.model_dump(), strict=True),
        totals=card.totals,
        results=card.results,
        flags=tuple(card.flags or ()),
        method_card=public if isinstance(public, Mapping) else None,
        gate=card.gate,
        coverage=card.coverage,
        complete=card.complete,
        interrupted=card.interrupted,
        incomplete_reason=card.incomplete_reason,
        hallucination_entries=tuple(
            str(i) for i in (card.hallucination or {}).get("hallucination_entries") or ()
        ),
        runner=card.runner,
        older_profile=older.get("profile") if isinstance(older, Mapping) else None,
        metrics_not_computed=tuple(str(n) for n in card.extra("metrics_not_computed") or ()),
        raw=raw,
    )
