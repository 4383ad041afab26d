"""Who validated a result (spec §9.4), at the unit level: the ±2 % reproduction rule, what a
human-validation record must name, and the tier each card gets.

test_leaderboard.py proves the same through `mteval leaderboard` on real cards, at seconds per
test; these take milliseconds, so mutation testing can judge verification_tier.py with them.
"""

from __future__ import annotations

import datetime as dt
import json
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
    HumanValidation,
    read_human_validation,
    reproduces,
    sidecar_path,
    verification_tiers,
)

HASH_A = "a" * 64
HASH_B = "b" * 64
MAINTAINER = Ed25519PrivateKey.generate()
SUBMITTER = Ed25519PrivateKey.generate()
KEYS = [MAINTAINER.public_key()]


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


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "run_card_hash": HASH_A,
        "organisation": "Maskwacîs Education Schools Commission",
        "reviewed_at": "2026-11-30",
        "reviewers": 3,
        "ratings": {"excellent": 4, "acceptable": 5, "gist": 1},
        "accepted": True,
    }
    record.update(changes)
    return record


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
    validated = HumanValidation.model_validate(_record(run_card_hash="c" * 64))
    tiers = verification_tiers([first, second, lone], [None, None, validated], KEYS)
    assert [t.name for t in tiers] == [
        MAINTAINER_VERIFIED,
        SELF_BENCHMARKED,  # its twin is the submitter's, not a maintainer's
        COMMUNITY_VALIDATED,
    ]
    assert tiers[0].reason == "reproduced within ±2% by maintainer run run-bbbb"
    assert tiers[1].reason == (
        "no independent reproduction: run run-aaaa is not signed by a maintainer key"
    )
    assert tiers[2].reason == (
        "accepted by Maskwacîs Education Schools Commission on 2026-11-30 "
        "(3 reviewers, 10 outputs rated)"
    )
    alone = verification_tiers([lone], [None], KEYS)
    assert [(t.name, t.reason) for t in alone] == [(SELF_BENCHMARKED, "no reproduction")]


def test_every_twin_is_named_and_a_rejection_is_said():
    cards = [_card(f"run{i}xxxxxx", 0.6, str(i) * 64, signer=MAINTAINER) for i in range(1, 3)]
    cards.insert(0, _card("run0xxxxxx", 0.6, "0" * 64))
    tiers = verification_tiers(cards, [None, None, None], KEYS)
    assert tiers[0].reason == "reproduced within ±2% by maintainer run run1xxxx, run2xxxx"
    rejected = HumanValidation.model_validate(_record(accepted=False))
    lone = verification_tiers([_card("run-aaaaaaaa", 0.6, HASH_A)], [rejected])
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


# -- human-validation records ------------------------------------------------------------------


def test_the_sidecar_sits_beside_the_card():
    assert sidecar_path(Path("cards/run.json")) == Path("cards/run.human-validation.json")
    assert sidecar_path(Path("cards/run")) == Path("cards/run.human-validation.json")


def test_a_record_in_the_card_is_read_and_checked_against_the_card(tmp_path):
    card = {"run_card_hash": HASH_A, "human_validation": _record()}
    record, problem = read_human_validation(card, tmp_path / "run.json")
    assert problem is None
    assert record is not None
    assert record.rated() == 10
    assert record.reviewed_at == dt.date(2026, 11, 30)
    other = {"run_card_hash": HASH_B, "human_validation": _record()}
    record, problem = read_human_validation(other, tmp_path / "run.json")
    assert record is None
    assert problem == (
        f"{tmp_path / 'run.json'}: field 'human_validation': names run_card_hash aaaaaaaaaaaa, "
        "not this card"
    )


def test_the_card_s_own_record_wins_over_a_sidecar(tmp_path):
    card_path = tmp_path / "run.json"
    sidecar_path(card_path).write_text("{broken", encoding="utf-8")
    card = {"run_card_hash": HASH_A, "human_validation": _record(organisation="In the card")}
    record, problem = read_human_validation(card, card_path)
    assert problem is None
    assert record is not None
    assert record.organisation == "In the card"


def test_a_sidecar_is_read_when_the_card_has_none(tmp_path):
    card_path = tmp_path / "run.json"
    sidecar = sidecar_path(card_path)
    sidecar.write_text(json.dumps(_record(organisation="Beside")), encoding="utf-8")
    record, problem = read_human_validation({"run_card_hash": HASH_A}, card_path)
    assert problem is None
    assert record is not None
    assert record.organisation == "Beside"
    assert read_human_validation({"run_card_hash": HASH_A}, tmp_path / "other.json") == (
        None,
        None,
    )


def test_an_unusable_sidecar_is_one_line_naming_it_and_the_field(tmp_path):
    card_path = tmp_path / "run.json"
    sidecar = sidecar_path(card_path)
    sidecar.write_text("{broken", encoding="utf-8")
    record, problem = read_human_validation({"run_card_hash": HASH_A}, card_path)
    assert record is None
    assert problem is not None
    assert problem.startswith(f"{sidecar}: unreadable: ")
    sidecar.write_text(json.dumps(_record(reviewers=0)), encoding="utf-8")
    record, problem = read_human_validation({"run_card_hash": HASH_A}, card_path)
    assert record is None
    assert problem == f"{sidecar}: field 'reviewers': Input should be greater than or equal to 1"
    sidecar.write_text(json.dumps(_record(ratings={"excellent": 0})), encoding="utf-8")
    record, problem = read_human_validation({"run_card_hash": HASH_A}, card_path)
    assert record is None
    assert problem == f"{sidecar}: field 'ratings': no output was rated"


def test_a_record_that_is_not_an_object_names_the_record(tmp_path):
    card = {"run_card_hash": HASH_A, "human_validation": ["accepted"]}
    record, problem = read_human_validation(card, tmp_path / "run.json")
    assert record is None
    assert problem is not None
    assert problem.startswith(
        f"{tmp_path / 'run.json'}: field 'human_validation': field '(record)': "
    )


def test_a_single_rated_output_is_enough_and_a_bad_rating_names_its_nested_field(tmp_path):
    card_path = tmp_path / "run.json"
    one = {"run_card_hash": HASH_A, "human_validation": _record(ratings={"gist": 1})}
    record, problem = read_human_validation(one, card_path)
    assert problem is None
    assert record is not None
    assert record.rated() == 1
    odd = {"run_card_hash": HASH_A, "human_validation": _record(ratings={"superb": 1})}
    record, problem = read_human_validation(odd, card_path)
    assert record is None
    assert problem is not None
    assert problem.startswith(
        f"{card_path}: field 'human_validation': field 'ratings.superb.[key]': Input should be"
    )


def test_a_validated_card_first_does_not_stop_the_others_being_tiered():
    validated = HumanValidation.model_validate(_record())
    cards = [_card("run-aaaaaaaa", 0.6, HASH_A, signer=MAINTAINER)]
    cards.append(_card("run-bbbbbbbb", 0.6, HASH_B))
    cards.append(_card("run-cccccccc", 0.9, "c" * 64, fingerprint="d" * 64))
    tiers = verification_tiers(cards, [validated, None, None], KEYS)
    assert [t.name for t in tiers] == [COMMUNITY_VALIDATED, MAINTAINER_VERIFIED, SELF_BENCHMARKED]


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
