"""A card's review record as the leaderboard reads it: its chain to the parent checked here
(``review/chain.py``, as ``mteval verify`` does), what it earns decided by the one verifier
(``cards/verification_tier.py``) under the governance keys the reader gives.

A trusted validated card extends its parent: when both are on the leaderboard, the parent is
left out (the validated card is the same run, with its review) so that one run has one row.
An untrusted record hides nothing.
"""

from __future__ import annotations

from pathlib import Path

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.runcard import RunCardError
from pytest_mteval.cards.verification_tier import (
    TrustRoots,
    ValidationVerdict,
    validation_verdict,
)
from pytest_mteval.review.chain import verify_chain


def review_verdict(view: CardView, path: Path, roots: TrustRoots) -> ValidationVerdict | None:
    """What the card's review record earns (None: it has none). The chain is checked on the
    card's JSON (``CardView.raw``), which its hashes are of."""
    card = view.raw
    problem: str | None = None
    if view.foreign is None and isinstance(card.get("human_validation"), dict):
        try:
            verify_chain(card, path)
        except RunCardError as exc:
            problem = str(exc)
    return validation_verdict(card, path, problem, roots)
