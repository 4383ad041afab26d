"""Who validated a result (benchmark spec §9.4), derived from the evidence at hand only.

- ``self-benchmarked``: a card on its own; what every card is at least.
- ``maintainer-verified``: an INDEPENDENT reproduction (spec §9.2.3, §9.4): another card of
  the SAME fingerprint (same dataset, model, condition, prompt, temperature, harness version,
  batch size and tools), from a DIFFERENT run (its own run_id and run_card_hash), that served
  no entry from the translation cache (its ``cache.cache_hits`` is 0), whose signature verifies
  with one of the maintainers' public keys, and not with the key that signed the card itself,
  reproduces the composite within ±2 %, relative to the larger of the two. A repeat of the
  same run by the same person, or a cached rerun, is not a reproduction.
- ``community-validated``: a human-validation record (spec §7) names this card's
  run_card_hash and says the community accepted the output. The record sits in the sealed card
  (key ``human_validation``) or beside it in ``<card>.human-validation.json``.

A hash only proves a card was not edited after sealing, not who ran it; the maintainer's
signature says who did. Without maintainer keys no card is maintainer-verified.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_mteval.cards.code_identity import code_problem
from pytest_mteval.cards.fingerprint import same_configuration
from pytest_mteval.cards.signing import SigningError, verify_signature
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json

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
            raw = read_json(sidecar, "human-validation record")  # bounded: no RecursionError
        except MtevalError as exc:
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
    """Whether ``b`` is another run of ``a``'s configuration with a composite within tolerance
    (independence is :func:`independence_problem`'s question)."""
    if not same_configuration(a, b):  # either fingerprint form (cards/fingerprint.py)
        return False
    if code_problem(a, b) is not None:  # issue 41: same fingerprint, other code (code_identity)
        return False
    if a.get("run_id") == b.get("run_id") or a.get("run_card_hash") == b.get("run_card_hash"):
        return False  # a copy of the same run is not a reproduction
    first, second = _composite(a), _composite(b)
    if first is None or second is None:
        return False
    return abs(first - second) <= REPRODUCTION_TOLERANCE * max(abs(first), abs(second))


def maintainer_signer(card: Mapping[str, Any], keys: Sequence[Ed25519PublicKey]) -> str | None:
    """The fingerprint of the maintainer key whose signature on ``card`` verifies, if any."""
    for key in keys:
        try:
            return verify_signature(dict(card), key, "card")
        except SigningError:
            continue
    return None


def independence_problem(
    card: Mapping[str, Any], twin: Mapping[str, Any], keys: Sequence[Ed25519PublicKey]
) -> str | None:
    """Why ``twin`` (a reproduction of ``card``) is not an independent one, or None."""
    run = str(twin.get("run_id"))[:8]
    cache: Mapping[str, Any] = twin.get("cache") or {}
    hits = cache.get("cache_hits")
    if not isinstance(hits, int) or isinstance(hits, bool):
        return f"run {run} does not record its cache hits"
    if hits:
        return f"run {run} served {hits} entries from the translation cache"
    signer = maintainer_signer(twin, keys)
    if signer is None:
        return f"run {run} is not signed by a maintainer key"
    own: Mapping[str, Any] = card.get("signature") or {}
    if own.get("public_key_sha256") == signer:
        return f"run {run} is signed by the submitter's own key"
    return None


def verification_tiers(
    cards: Sequence[Mapping[str, Any]],
    validations: Sequence[HumanValidation | None],
    maintainer_keys: Sequence[Ed25519PublicKey] = (),
) -> list[Tier]:
    """The tier of each card (verified cards only), given the other cards, each card's
    human-validation record (None: none usable) and the maintainers' public keys."""
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
        problems = [independence_problem(card, t, maintainer_keys) for t in twins]
        independent = [t for t, problem in zip(twins, problems, strict=True) if problem is None]
        if independent:
            runs = ", ".join(str(t.get("run_id"))[:8] for t in independent)
            tiers.append(
                Tier(MAINTAINER_VERIFIED, f"reproduced within ±2% by maintainer run {runs}")
            )
            continue
        if validation is not None:
            note = "rejected by community review"
        elif twins:
            note = "no independent reproduction: " + "; ".join(p for p in problems if p)
        else:
            note = "no reproduction"
        tiers.append(Tier(SELF_BENCHMARKED, note))
    return tiers


def _composite(card: Mapping[str, Any]) -> float | None:
    value = (card.get("scores") or {}).get("composite")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
