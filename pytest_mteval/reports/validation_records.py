"""The human-validation record of a card as the leaderboard reads it, in either form: the
record ``mteval review ingest`` seals into a new card (``review/ingest.py``: ``extends`` names
the parent card, whose hash chain ``review/chain.py`` checks, as ``mteval verify`` does), or
the plain record of ``cards/verification_tier.py`` (sealed in the card or beside it).

A validated card extends its parent: when both are on the leaderboard, the parent is left out
(the validated card is the same run, with its review) so that one run has one row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.runcard import RunCardError
from pytest_mteval.cards.verification_tier import HumanValidation, read_human_validation
from pytest_mteval.review.chain import verify_chain


def human_validation(view: CardView, path: Path) -> tuple[HumanValidation | None, str | None]:
    """The card's record, if any, and a one-line problem when one exists but cannot be used.
    Its chain is checked on the card's JSON (``CardView.raw``), which its hashes are of."""
    card = view.raw
    block = card.get("human_validation")
    if not isinstance(block, Mapping) or "extends" not in block:
        return read_human_validation(card, path)
    try:
        verify_chain(card, path)
    except RunCardError as exc:
        return None, str(exc)
    try:
        record = HumanValidation(
            run_card_hash=str(card["run_card_hash"]),
            organisation=str(block.get("organisation") or "community review (mteval review)"),
            reviewed_at=block["ingested"],
            reviewers=len(block["reviewers"]),
            ratings={k: v for k, v in dict(block["ratings"]).items() if v},
            accepted=bool(block["meets_threshold"]),
        )
    except (KeyError, TypeError, ValidationError) as exc:
        return None, f"{path}: field 'human_validation': not a review record ({exc})"
    return record, None


def extended_parents(cards: Sequence[CardView]) -> set[str]:
    """The run_card_hash of every card another card extends with a validation record."""
    out: set[str] = set()
    for card in cards:
        block = card.raw.get("human_validation")
        if isinstance(block, Mapping) and isinstance(block.get("extends"), Mapping):
            out.add(str(block["extends"].get("run_card_hash")))
    return out
