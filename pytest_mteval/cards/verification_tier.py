"""The one verifier: every verdict a person reads, from the evidence and the keys they trust.

A file never vouches for itself. A sha256 anyone can recompute proves integrity only; a tier
needs a signature by a key the reader passes (``TrustRoots``):

- ``self-benchmarked``: every card that verifies, and all a card earns without a trusted key.
- ``maintainer-verified``: an INDEPENDENT reproduction (spec §9.2.3, §9.4): another card of the
  SAME fingerprint and code hash, from a DIFFERENT run, that served no entry from the cache,
  signed by a MAINTAINER key (not the key that signed the card itself), whose composite is
  within ±2 % of the card's, relative to the larger of the two.
- ``community-validated``: the card carries a review record (``mteval review ingest``) whose
  chain to its parent holds, whose sample was drawn with the seed the parent's hash fixes
  (``review_seed``), that meets its threshold, and that a GOVERNANCE key signed (domain
  ``VALIDATION_DOMAIN``, over the whole record: parent hash, sample and ratings). Only such a
  record's ``extends`` hides its parent from a board. A plain or unsigned record earns nothing.
- A foreign file (the reference harness's card or report) carries no signature: it is
  "integrity only, unsigned", never OK when a key is asked for.
- A steward authorisation is accepted only with a STEWARD key the run is given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from pytest_mteval.cards.code_identity import code_problem
from pytest_mteval.cards.fingerprint import same_configuration
from pytest_mteval.cards.signing import (
    DOMAIN,
    SigningError,
    key_fingerprint,
    load_public_key,
    verify_signature,
)

SELF_BENCHMARKED: Final = "self-benchmarked"
MAINTAINER_VERIFIED: Final = "maintainer-verified"
COMMUNITY_VALIDATED: Final = "community-validated"
#: What a foreign file is: its hash or re-scoring checks out, and nobody signed it.
INTEGRITY_ONLY: Final = "integrity only, unsigned"
#: Largest relative difference of composites that still counts as a reproduction (§9.2.3).
REPRODUCTION_TOLERANCE: Final = 0.02
SIDECAR_SUFFIX: Final = ".human-validation.json"
#: What a governance key signs a review record under; no card signature is ever one.
VALIDATION_DOMAIN: Final = b"pytest-mteval human validation v1\n"
_SEED_DOMAIN: Final = b"pytest-mteval review seed v1\n"
#: The end of a quality tier label that claims a community review (``review/chain.py``).
VALIDATED_LABEL: Final = "(community validated)"


@dataclass(frozen=True)
class TrustRoots:
    """The public keys the reader trusts, by role; nothing else grants a tier."""

    maintainer: tuple[Ed25519PublicKey, ...] = ()
    governance: tuple[Ed25519PublicKey, ...] = ()
    steward: tuple[Ed25519PublicKey, ...] = ()

    @classmethod
    def from_files(
        cls,
        maintainer: Sequence[Path] = (),
        governance: Sequence[Path] = (),
        steward: Sequence[Path] = (),
    ) -> TrustRoots:
        """Keys read from PEM files; SigningError names the file that is not one."""
        return cls(
            tuple(load_public_key(p) for p in maintainer),
            tuple(load_public_key(p) for p in governance),
            tuple(load_public_key(p) for p in steward),
        )


@dataclass(frozen=True)
class Tier:
    name: str
    reason: str


@dataclass(frozen=True)
class ValidationVerdict:
    """What a card's review record earns: ``honoured`` when it verifies under a trusted
    governance key, ``accepted`` when it also meets its threshold; ``extends`` is the parent
    it claims, believed only when honoured."""

    honoured: bool
    accepted: bool
    reason: str
    extends: str | None = None


def signer_among(
    document: Mapping[str, Any], keys: Sequence[Ed25519PublicKey], domain: bytes = DOMAIN
) -> str | None:
    """The fingerprint of the first key in ``keys`` whose signature on ``document`` holds."""
    for key in keys:
        try:
            return verify_signature(dict(document), key, "document", domain)
        except SigningError:
            continue
    return None


def review_seed(card_hash: str) -> int:
    """The only seed a review sample of the card with this hash may be drawn with."""
    digest = hashlib.sha256(_SEED_DOMAIN + card_hash.encode("ascii", "replace")).hexdigest()
    return int(digest[:12], 16)


# -- mteval verify -----------------------------------------------------------------------------


def signature_verdict(
    card: dict[str, Any], path: Path, public_key: Ed25519PublicKey | None
) -> tuple[bool, str]:
    """Whether the card's signature holds for the key asked for, and the line saying so."""
    if public_key is None:
        if isinstance(card.get("signature"), dict):
            return True, "signature present but not checked (pass --public-key)"
        return True, "unsigned: the hash proves integrity only to whoever trusts the card's origin"
    try:
        fingerprint = verify_signature(card, public_key, str(path))
    except SigningError as exc:
        return False, str(exc)
    return True, f"signature verifies with key {fingerprint[:16]}…"


def foreign_verdict(integrity: str, public_key: Ed25519PublicKey | None) -> tuple[bool, str]:
    """A foreign file is never signed: OK for its integrity, never under a key."""
    if public_key is None:
        return True, f"{integrity}; {INTEGRITY_ONLY}"
    return False, (
        f"{integrity}; {INTEGRITY_ONLY}: no signature to check with key "
        f"{key_fingerprint(public_key)[:16]}… (a foreign file carries none)"
    )


# -- review records ----------------------------------------------------------------------------


def validation_verdict(
    card: Mapping[str, Any], path: Path, chain_problem: str | None, roots: TrustRoots
) -> ValidationVerdict | None:
    """What the card's review record earns (None: the card has none); ``chain_problem`` is
    ``review.chain``'s answer on whether the record is its parent plus ratings."""
    block = card.get("human_validation")
    if not isinstance(block, Mapping):
        if sidecar_path(path).is_file():
            return ValidationVerdict(False, False, f"{sidecar_path(path)}: {_PLAIN}")
        return None
    extends = block.get("extends")
    if not isinstance(extends, Mapping):
        return ValidationVerdict(False, False, f"{path}: field 'human_validation': {_PLAIN}")
    claimed = str(extends.get("run_card_hash"))  # what the record says; believed if honoured

    def untrusted(reason: str) -> ValidationVerdict:
        return ValidationVerdict(False, False, reason, claimed)

    if chain_problem is not None:
        return untrusted(chain_problem)
    where = f"{path}: field 'human_validation'"
    if not isinstance(block.get("signature"), Mapping):
        return untrusted(f"{where}: not signed by a governance key, earns nothing")
    if not roots.governance:
        return untrusted(f"{where}: no governance key given (--governance-key) to check it with")
    signer = signer_among(block, roots.governance, VALIDATION_DOMAIN)
    if signer is None:
        return untrusted(f"{where}: its signature holds with no governance key given")
    sample: Mapping[str, Any] = block.get("sample") or {}
    drawn_from = sample.get("drawn_from")
    if not isinstance(drawn_from, str) or sample.get("seed") != review_seed(drawn_from):
        return untrusted(f"{where}: its sample's seed is not the one the card's hash fixes")
    accepted = block.get("meets_threshold") is True
    reviewers = block.get("reviewers")
    count = len(reviewers) if isinstance(reviewers, list) else 0
    ratings = block.get("ratings")
    rated = (
        sum(v for v in ratings.values() if isinstance(v, int))
        if isinstance(ratings, Mapping)
        else 0
    )
    verdict = "accepted" if accepted else "rejected"
    return ValidationVerdict(
        True,
        accepted,
        f"{verdict} by community review on {block.get('ingested')} ({count} reviewers, "
        f"{rated} outputs rated), signed by governance key {signer[:16]}…",
        claimed,
    )


_PLAIN: Final = (
    "a plain human-validation record is not signed by a governance key and earns nothing "
    "(a review counts when `mteval review ingest --sign-key` signs it)"
)


def sidecar_path(path: Path) -> Path:
    """Where a plain record beside the card at ``path`` would be (read, never trusted)."""
    return path.with_name(path.name.removesuffix(".json") + SIDECAR_SUFFIX)


def honoured_parents(verdicts: Sequence[ValidationVerdict | None]) -> set[str]:
    """The run_card_hash of every card a TRUSTED review record extends (a record's claim
    alone hides no card: that was how a competitor was left off a board)."""
    return {v.extends for v in verdicts if v is not None and v.honoured and v.extends}


# -- steward authorisations --------------------------------------------------------------------


def authorisation_signer(
    document: dict[str, Any], path: Path, steward: Ed25519PublicKey, domain: bytes
) -> str:
    """The steward key's fingerprint when its signature on the authorisation holds;
    SigningError in one line otherwise."""
    return verify_signature(document, steward, str(path), domain)


def authorisation_verdict(
    card: Mapping[str, Any], steward: Sequence[Ed25519PublicKey]
) -> tuple[bool, str] | None:
    """What ``mteval verify`` says of the steward authorisation a card records (None: it
    records none). The run checked the file; the card says under which key, so this is worth
    what the card's own signature is worth."""
    record = card.get("steward_authorisation")
    if not isinstance(record, Mapping):
        return None
    named = str(record.get("steward_key_sha256"))
    if not steward:
        return True, (
            f"steward authorisation accepted by the run under key {named[:16]}… "
            "(not compared: pass --steward-key)"
        )
    if named in {key_fingerprint(key) for key in steward}:
        return True, f"steward authorisation accepted by the run under the given key {named[:16]}…"
    return False, (
        f"steward authorisation: the run accepted it under key {named[:16]}…, not under a "
        "steward key given (--steward-key)"
    )


# -- reproductions and tiers -------------------------------------------------------------------


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
    return signer_among(card, keys)


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
    validations: Sequence[ValidationVerdict | None],
    roots: TrustRoots = TrustRoots(),
) -> list[Tier]:
    """The tier of each card (verified cards only), given the other cards, each card's review
    verdict (``validation_verdict``) and the keys the reader trusts."""
    tiers: list[Tier] = []
    for card, validation in zip(cards, validations, strict=True):
        if validation is not None and validation.accepted:
            tiers.append(Tier(COMMUNITY_VALIDATED, validation.reason))
            continue
        twins = [other for other in cards if other is not card and reproduces(card, other)]
        problems = [independence_problem(card, t, roots.maintainer) for t in twins]
        independent = [t for t, problem in zip(twins, problems, strict=True) if problem is None]
        if independent:
            runs = ", ".join(str(t.get("run_id"))[:8] for t in independent)
            tiers.append(
                Tier(MAINTAINER_VERIFIED, f"reproduced within ±2% by maintainer run {runs}")
            )
            continue
        if validation is not None and validation.honoured:
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


def shown_quality_tier(card: Mapping[str, Any], verdict: ValidationVerdict | None) -> str:
    """The quality tier a reader is shown: a label claiming community validation stands only
    when the review earned it; otherwise the parent's automated tier the record names."""
    scores: Mapping[str, Any] = card.get("scores") or {}
    tier = scores.get("quality_tier")
    if not isinstance(tier, str):
        return "unscored"
    if not tier.endswith(VALIDATED_LABEL) or (verdict is not None and verdict.accepted):
        return tier
    block: Mapping[str, Any] = card.get("human_validation") or {}
    extends: Mapping[str, Any] = block.get("extends") or {}
    parent = extends.get("quality_tier")
    return parent if isinstance(parent, str) else "unscored"
