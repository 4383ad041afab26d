"""Who validated a result (spec §9.4), at the unit level: the ±2 % reproduction rule, what a
review record must carry to count (a governance signature, the seed the parent's hash fixes),
and the tier each card gets from the keys the reader trusts.

test_leaderboard.py and test_trust_attacks.py prove the same through the real commands on real
cards, at seconds per test; these take milliseconds, so mutation testing can judge
verification_tier.py with them.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pytest_mteval.cards.signing import sign
from pytest_mteval.cards.verification_tier import (
    COMMUNITY_VALIDATED,
    MAINTAINER_VERIFIED,
    SELF_BENCHMARKED,
    VALIDATION_DOMAIN,
    TrustRoots,
    ValidationVerdict,
    honoured_parents,
    reproduces,
    review_seed,
    shown_quality_tier,
    sidecar_path,
    validation_verdict,
    verification_tiers,
)

HASH_A = "a" * 64
HASH_B = "b" * 64
MAINTAINER = Ed25519PrivateKey.generate()
SUBMITTER = Ed25519PrivateKey.generate()
GOVERNANCE = Ed25519PrivateKey.generate()
KEYS = TrustRoots(maintainer=(MAINTAINER.public_key(),))
GOVERNED = TrustRoots(governance=(GOVERNANCE.public_key(),))


def _card(
    run_id: str,
    composite: Any,
    run_card_hash: str,
    fingerprint: str = "f" * 64,
    signer: Ed25519PrivateKey | None = None,
    cache_hits: Any = 0,
    code: str = "c" * 64,
):
    card = {
        "run_id": run_id,
        "fingerprint": fingerprint,
        "run_card_hash": run_card_hash,
        "scores": {"composite": composite},
        "cache": {"cache_hits": cache_hits},
        "method": {"code": {"sha256": code}},
    }
    return sign(card, signer) if signer is not None else card


ACCEPTED = ValidationVerdict(True, True, "accepted by community review", HASH_B)
REJECTED = ValidationVerdict(True, False, "rejected by community review", HASH_B)


# -- the reproduction rule ---------------------------------------------------------------------


def test_a_reproduction_is_within_two_percent_of_the_larger_composite():
    # 0.02 x 50 is exactly 1.0 in binary floating point, and so is 50 - 49: the boundary itself
    assert 0.02 * 50.0 == 1.0
    assert 50.0 - 49.0 == 1.0
    a = _card("run-aaaaaaaa", 50.0, HASH_A)
    assert reproduces(a, _card("run-bbbbbbbb", 49.0, HASH_B))
    assert reproduces(_card("run-bbbbbbbb", 49.0, HASH_B), a)  # relative to the larger: 50
    below = math.nextafter(49.0, 0.0)
    assert not reproduces(a, _card("run-bbbbbbbb", below, HASH_B))
    assert not reproduces(_card("run-bbbbbbbb", below, HASH_B), a)
    assert reproduces(a, _card("run-bbbbbbbb", 51.0, HASH_B))  # 1 <= 0.02 x 51
    assert not reproduces(a, _card("run-bbbbbbbb", 51.05, HASH_B))  # 1.05 > 1.021


def test_only_an_independent_run_of_the_same_fingerprint_reproduces():
    a = _card("run-aaaaaaaa", 0.6, HASH_A)
    assert reproduces(a, _card("run-bbbbbbbb", 0.6, HASH_B))
    assert not reproduces(a, _card("run-bbbbbbbb", 0.6, HASH_B, fingerprint="e" * 64))
    assert not reproduces(a, _card("run-aaaaaaaa", 0.6, HASH_B))  # same run id
    assert not reproduces(a, _card("run-bbbbbbbb", 0.6, HASH_A))  # same card, renamed run


@pytest.mark.parametrize("composite", [None, "0.6", True, [0.6]])
def test_a_card_without_a_numeric_composite_reproduces_nothing(composite):
    a = _card("run-aaaaaaaa", 0.6, HASH_A)
    odd = _card("run-bbbbbbbb", composite, HASH_B)
    assert not reproduces(a, odd)
    assert not reproduces(odd, a)
    assert not reproduces(a, {**odd, "scores": None})


def test_an_integer_composite_counts():
    assert reproduces(_card("run-aaaaaaaa", 1, HASH_A), _card("run-bbbbbbbb", 1.0, HASH_B))


# -- tiers -------------------------------------------------------------------------------------


def test_tiers_of_a_reproduced_pair_a_validated_card_and_a_lone_one():
    first = _card("run-aaaaaaaa-1", 0.60, HASH_A, signer=SUBMITTER)
    second = _card("run-bbbbbbbb-2", 0.61, HASH_B, signer=MAINTAINER)
    lone = _card("run-cccccccc-3", 0.9, "c" * 64, fingerprint="d" * 64)
    tiers = verification_tiers([first, second, lone], [None, None, ACCEPTED], KEYS)
    assert [t.name for t in tiers] == [
        MAINTAINER_VERIFIED,
        SELF_BENCHMARKED,  # its twin is the submitter's, not a maintainer's
        COMMUNITY_VALIDATED,
    ]
    assert tiers[0].reason == "reproduced within ±2% by maintainer run run-bbbb"
    assert tiers[1].reason == (
        "no independent reproduction: run run-aaaa is not signed by a maintainer key"
    )
    assert tiers[2].reason == "accepted by community review"
    alone = verification_tiers([lone], [None], KEYS)
    assert [(t.name, t.reason) for t in alone] == [(SELF_BENCHMARKED, "no reproduction")]


def test_every_twin_is_named_and_a_rejection_is_said():
    cards = [_card(f"run{i}xxxxxx", 0.6, str(i) * 64, signer=MAINTAINER) for i in range(1, 3)]
    cards.insert(0, _card("run0xxxxxx", 0.6, "0" * 64))
    tiers = verification_tiers(cards, [None, None, None], KEYS)
    assert tiers[0].reason == "reproduced within ±2% by maintainer run run1xxxx, run2xxxx"
    lone = verification_tiers([_card("run-aaaaaaaa", 0.6, HASH_A)], [REJECTED])
    assert [(t.name, t.reason) for t in lone] == [
        (SELF_BENCHMARKED, "rejected by community review")
    ]


@pytest.mark.parametrize(
    ("twin", "why"),
    [
        (dict(signer=MAINTAINER, cache_hits=3), "served 3 entries from the translation cache"),
        (dict(signer=MAINTAINER, cache_hits=None), "does not record its cache hits"),
        (dict(signer=MAINTAINER, cache_hits=True), "does not record its cache hits"),
        (dict(signer=SUBMITTER), "is not signed by a maintainer key"),
        (dict(), "is not signed by a maintainer key"),
    ],
)
def test_a_reproduction_that_is_not_independent_does_not_verify(twin, why):
    card = _card("run-aaaaaaaa", 0.6, HASH_A, signer=SUBMITTER)
    other = _card("run-bbbbbbbb", 0.6, HASH_B, **twin)
    tiers = verification_tiers([card, other], [None, None], KEYS)
    assert tiers[0].name == SELF_BENCHMARKED
    assert tiers[0].reason == f"no independent reproduction: run run-bbbb {why}"


def test_the_submitters_own_maintainer_key_is_no_independent_reproduction():
    card = _card("run-aaaaaaaa", 0.6, HASH_A, signer=MAINTAINER)
    other = _card("run-bbbbbbbb", 0.6, HASH_B, signer=MAINTAINER)
    tiers = verification_tiers([card, other], [None, None], KEYS)
    assert [t.reason for t in tiers] == [
        "no independent reproduction: run run-bbbb is signed by the submitter's own key",
        "no independent reproduction: run run-aaaa is signed by the submitter's own key",
    ]


def test_an_edited_maintainer_card_or_no_keys_verifies_nothing():
    card = _card("run-aaaaaaaa", 0.6, HASH_A)
    other = _card("run-bbbbbbbb", 0.6, HASH_B, signer=MAINTAINER)
    assert verification_tiers([card, other], [None, None], KEYS)[0].name == MAINTAINER_VERIFIED
    assert verification_tiers([card, other], [None, None])[0].name == SELF_BENCHMARKED
    edited = {**other, "cache": {"cache_hits": 0, "note": "edited after signing"}}
    assert verification_tiers([card, edited], [None, None], KEYS)[0].name == SELF_BENCHMARKED


def test_the_same_card_object_twice_is_not_its_own_reproduction_but_an_equal_copy_neither():
    card = _card("run-aaaaaaaa", 0.6, HASH_A)
    assert [t.name for t in verification_tiers([card], [None])] == [SELF_BENCHMARKED]
    copy = dict(card)
    assert [t.name for t in verification_tiers([card, copy], [None, None])] == [
        SELF_BENCHMARKED,
        SELF_BENCHMARKED,
    ]


def test_tiers_need_one_validation_slot_per_card():
    with pytest.raises(ValueError, match="zip"):
        verification_tiers([_card("r", 0.5, HASH_A)], [])


# -- review records ----------------------------------------------------------------------------


def _block(seed: int | None = None, meets: bool = True) -> dict[str, Any]:
    """The parts of an ingested record the verdict reads."""
    return {
        "extends": {"run_card_hash": HASH_B, "run_id": "run-b", "quality_tier": "x"},
        "sample": {"seed": review_seed(HASH_B) if seed is None else seed, "drawn_from": HASH_B},
        "reviewers": [{"id": "r-1"}, {"id": "r-2"}],
        "ingested": "2026-12-01",
        "ratings": {"excellent": 20, "acceptable": 10},
        "meets_threshold": meets,
    }


def _validated(block: dict[str, Any], key: Ed25519PrivateKey | None = GOVERNANCE) -> dict:
    signed = sign(copy.deepcopy(block), key, VALIDATION_DOMAIN) if key is not None else block
    return {"run_card_hash": HASH_A, "human_validation": signed}


def test_the_sidecar_sits_beside_the_card():
    assert sidecar_path(Path("cards/run.json")) == Path("cards/run.human-validation.json")
    assert sidecar_path(Path("cards/run")) == Path("cards/run.human-validation.json")


def test_a_governance_signed_record_with_the_fixed_seed_is_honoured(tmp_path):
    verdict = validation_verdict(_validated(_block()), tmp_path / "v.json", None, GOVERNED)
    assert verdict is not None
    assert (verdict.honoured, verdict.accepted, verdict.extends) == (True, True, HASH_B)
    assert verdict.reason.startswith(
        "accepted by community review on 2026-12-01 (2 reviewers, 30 outputs rated), "
        "signed by governance key "
    )
    poor = validation_verdict(_validated(_block(meets=False)), tmp_path / "v.json", None, GOVERNED)
    assert poor is not None
    assert (poor.honoured, poor.accepted) == (True, False)
    assert honoured_parents([verdict, poor, None]) == {HASH_B}


@pytest.mark.parametrize(
    ("card", "roots", "chain", "why"),
    [
        (_validated(_block(), key=None), GOVERNED, None, "not signed by a governance key"),
        (_validated(_block(), key=SUBMITTER), GOVERNED, None, "holds with no governance key"),
        (_validated(_block()), TrustRoots(), None, "no governance key given"),
        (_validated(_block()), KEYS, None, "no governance key given"),
        (_validated(_block(seed=12345)), GOVERNED, None, "seed is not the one"),
        (_validated(_block()), GOVERNED, "the chain is broken", "the chain is broken"),
        ({"run_card_hash": HASH_A, "human_validation": {"accepted": True}}, GOVERNED, None,
         "plain human-validation record"),
    ],
    ids=["unsigned", "other-key", "no-key", "maintainer-only", "chosen-seed", "chain", "plain"],
)  # fmt: skip
def test_a_record_that_is_not_trusted_earns_nothing_and_extends_nothing(
    card, roots, chain, why, tmp_path
):
    verdict = validation_verdict(card, tmp_path / "v.json", chain, roots)
    assert verdict is not None
    assert (verdict.honoured, verdict.accepted) == (False, False)
    assert why in verdict.reason
    assert honoured_parents([verdict]) == set()
    tiers = verification_tiers([_card("run-a", 0.6, HASH_A)], [verdict], roots)
    assert [(t.name, t.reason) for t in tiers] == [(SELF_BENCHMARKED, "no reproduction")]


def test_a_record_edited_after_signing_is_not_signed(tmp_path):
    card = _validated(_block(meets=False))
    card["human_validation"]["meets_threshold"] = True
    verdict = validation_verdict(card, tmp_path / "v.json", None, GOVERNED)
    assert verdict is not None
    assert not verdict.accepted


def test_a_sidecar_beside_a_card_earns_nothing_and_no_record_is_none(tmp_path):
    card_path = tmp_path / "run.json"
    assert validation_verdict({"run_card_hash": HASH_A}, card_path, None, GOVERNED) is None
    sidecar_path(card_path).write_text('{"accepted": true}', encoding="utf-8")
    verdict = validation_verdict({"run_card_hash": HASH_A}, card_path, None, GOVERNED)
    assert verdict is not None
    assert not verdict.honoured
    assert verdict.reason.startswith(f"{sidecar_path(card_path)}: a plain human-validation")


def test_the_review_seed_is_the_documented_function_of_the_hash():
    import hashlib

    digest = hashlib.sha256(b"pytest-mteval review seed v1\n" + HASH_A.encode()).hexdigest()
    assert review_seed(HASH_A) == int(digest[:12], 16)
    assert review_seed(HASH_A) != review_seed(HASH_B)


def test_a_validated_card_first_does_not_stop_the_others_being_tiered():
    validated = ACCEPTED
    cards = [_card("run-aaaaaaaa", 0.6, HASH_A, signer=MAINTAINER)]
    cards.append(_card("run-bbbbbbbb", 0.6, HASH_B))
    cards.append(_card("run-cccccccc", 0.9, "c" * 64, fingerprint="d" * 64))
    tiers = verification_tiers(cards, [validated, None, None], KEYS)
    assert [t.name for t in tiers] == [COMMUNITY_VALIDATED, MAINTAINER_VERIFIED, SELF_BENCHMARKED]


def test_a_community_validated_label_is_shown_only_when_the_review_earned_it():
    card = {
        "scores": {"quality_tier": "fluent (community validated)"},
        "human_validation": {"extends": {"quality_tier": "deployable (candidate)"}},
    }
    assert shown_quality_tier(card, ACCEPTED) == "fluent (community validated)"
    for verdict in (None, REJECTED, ValidationVerdict(False, False, "unsigned", HASH_B)):
        assert shown_quality_tier(card, verdict) == "deployable (candidate)"
    plain = {"scores": {"quality_tier": "functional"}}
    assert shown_quality_tier(plain, None) == "functional"
    assert shown_quality_tier({"scores": {}}, None) == "unscored"
    no_parent = {"scores": {"quality_tier": "fluent (community validated)"}}
    assert shown_quality_tier(no_parent, None) == "unscored"


def test_a_run_of_other_code_under_the_same_fingerprint_reproduces_nothing():
    """Issue 41: the fingerprint names no code; the card's code hash must be the same."""
    card = _card("r1", 0.5, HASH_A)
    assert reproduces(card, _card("r2", 0.5, HASH_B))
    assert not reproduces(card, _card("r2", 0.5, HASH_B, code="d" * 64))
    codeless = _card("r2", 0.5, HASH_B)
    del codeless["method"]
    assert not reproduces(card, codeless)
    other = _card("r2", 0.5, HASH_B, signer=MAINTAINER, code="d" * 64)
    assert verification_tiers([card, other], [None, None], KEYS)[0].name == SELF_BENCHMARKED
