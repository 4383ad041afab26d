"""Who validated a result (benchmark spec §9.4), derived from the evidence at hand only.

- ``self-benchmarked``: a card on its own; what every card is at least.
- ``maintainer-verified``: another card of the SAME fingerprint (same dataset, model,
  condition, prompt, temperature, harness version, batch size and tools), from a DIFFERENT run
  (its own run_id and run_card_hash), reproduces the composite within ±2 % (spec §9.2.3),
  relative to the larger of the two.
- ``community-validated``: a human-validation record (spec §7) names this card's
  run_card_hash and says the community accepted the output. The record sits in the sealed card
  (key ``human_validation``) or beside it in ``<card>.human-validation.json``.

A hash only proves a card was not edited after sealing, not who ran it: the labels say what
the files show, and a leaderboard operator still decides whose reproductions to accept.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SELF_BENCHMARKED: Final = "self-benchmarked"
MAINTAINER_VERIFIED: Final = "maintainer-verified"
COMMUNITY_VALIDATED: Final = "community-validated"
#: Largest relative difference of composites that still counts as a reproduction (§9.2.3).
REPRODUCTION_TOLERANCE: Final = 0.02
SIDECAR_SUFFIX: Final = ".human-validation.json"

Rating = Literal["reject", "gist", "acceptable", "excellent"]


class HumanValidation(BaseModel):
    """The outcome of a community review (spec §7.3): speakers rated a sample of outputs."""

    model_config = ConfigDict(extra="forbid")
    run_card_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    organisation: str = Field(min_length=1)
    reviewed_at: dt.date
    reviewers: int = Field(ge=1)
    ratings: dict[Rating, int]
    accepted: bool

    def rated(self) -> int:
        return sum(self.ratings.values())


@dataclass(frozen=True)
class Tier:
    name: str
    reason: str


def sidecar_path(card_path: Path) -> Path:
    return card_path.with_name(card_path.name.removesuffix(".json") + SIDECAR_SUFFIX)


def read_human_validation(
    card: Mapping[str, Any], card_path: Path
) -> tuple[HumanValidation | None, str | None]:
    """The card's human-validation record, if any, and a one-line problem when one exists
    but cannot be used (invalid, or made for another card)."""
    sidecar = sidecar_path(card_path)
    raw: Any = card.get("human_validation")
    where = f"{card_path}: field 'human_validation'"
    if raw is None and sidecar.is_file():
        where = str(sidecar)
        try:
            raw = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return None, f"{where}: unreadable: {exc}"
    if raw is None:
        return None, None
    try:
        record = HumanValidation.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(record)"
        return None, f"{where}: field {field!r}: {err['msg']}"
    if record.run_card_hash != card.get("run_card_hash"):
        return None, f"{where}: names run_card_hash {record.run_card_hash[:12]}, not this card"
    if record.rated() < 1:
        return None, f"{where}: field 'ratings': no output was rated"
    return record, None


def reproduces(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether ``b`` is an independent re-run of ``a`` with a composite within tolerance."""
    if a.get("fingerprint") != b.get("fingerprint"):
        return False
    if a.get("run_id") == b.get("run_id") or a.get("run_card_hash") == b.get("run_card_hash"):
        return False  # a copy of the same run is not a reproduction
    first, second = _composite(a), _composite(b)
    if first is None or second is None:
        return False
    return abs(first - second) <= REPRODUCTION_TOLERANCE * max(abs(first), abs(second))


def verification_tiers(
    cards: Sequence[Mapping[str, Any]], validations: Sequence[HumanValidation | None]
) -> list[Tier]:
    """The tier of each card (verified cards only), given the other cards and each card's
    human-validation record (None: none usable)."""
    tiers: list[Tier] = []
    for card, validation in zip(cards, validations, strict=True):
        if validation is not None and validation.accepted:
            tiers.append(
                Tier(
                    COMMUNITY_VALIDATED,
                    f"accepted by {validation.organisation} on {validation.reviewed_at} "
                    f"({validation.reviewers} reviewers, {validation.rated()} outputs rated)",
                )
            )
            continue
        twins = [other for other in cards if other is not card and reproduces(card, other)]
        if twins:
            runs = ", ".join(str(t.get("run_id"))[:8] for t in twins)
            tiers.append(Tier(MAINTAINER_VERIFIED, f"reproduced within ±2% by run {runs}"))
            continue
        note = "rejected by community review" if validation is not None else "no reproduction"
        tiers.append(Tier(SELF_BENCHMARKED, note))
    return tiers


def _composite(card: Mapping[str, Any]) -> float | None:
    value = (card.get("scores") or {}).get("composite")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
