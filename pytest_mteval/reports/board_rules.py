"""Which board a verified card stands on, or why it stands on none (benchmark spec §6.4, §9.7;
SCORING: composites are compared over the same metrics only; method interface: "Class X
methods are not listed").

- A card of a class X method is left out of the leaderboard altogether (counted in a note).
- A card whose method declares exposure to the secret entries it is scored on (spec §9.2.1)
  is listed apart with that reason, never ranked.
- A partial (``-k``, filters), interrupted or incomplete card is listed apart with its reason
  and never ranked: its composite is over other entries than a whole run's.
- Every other card shares a board only with cards of the same track, corpus version (dataset
  id, version, sha256), scoring profile and composite metric set.
- The official track holds gold-standard runs (only that segment covered), complete and run in
  the network sandbox; every other card is on the development track, below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.exposure import EXPOSED_TO_SECRET

OFFICIAL: Final = "official"
DEVELOPMENT: Final = "development"
#: The dependency class that is never listed (method interface, every track).
UNLISTED_CLASS: Final = "X"


@dataclass(frozen=True, order=True)
class BoardKey:
    """What cards must share to be ranked together."""

    track: str
    dataset_id: str
    version: str
    sha256: str
    profile: str
    metrics: tuple[str, ...]


def unlisted(card: CardView) -> bool:
    """Whether the card's method is of a class that is never listed."""
    return card.dependency_class == UNLISTED_CLASS


def why_not_ranked(card: CardView) -> str | None:
    """The reason a card cannot be ranked beside whole runs, or None when it can."""
    if any(flag.code == EXPOSED_TO_SECRET for flag in card.flags):
        return "the method declares exposure to the gold_standard/held_out entries scored"
    if card.interrupted is True:
        return "interrupted run"
    if card.coverage is not None and card.coverage.complete is False:
        reasons = "; ".join(str(r) for r in card.coverage.reasons) or "partial run"
        return f"partial run: {reasons}"
    if card.complete is False:
        return f"incomplete run: {card.incomplete_reason or 'entries failed'}"
    return None


def track_of(card: CardView) -> tuple[str, str]:
    """The card's track, and why it is not official when it is not."""
    covered = card.dataset.covered_segments
    runner = card.runner or {}
    if covered != ("gold_standard",):
        return DEVELOPMENT, f"segments {', '.join(covered or ()) or 'not recorded'}"
    if runner.get("sandbox") != "netns" or runner.get("isolated") is not True:
        return DEVELOPMENT, "gold standard, but not run in the network sandbox"
    return OFFICIAL, "gold standard, complete, sandboxed"


def board_key(card: CardView) -> BoardKey:
    dataset, scores = card.dataset, card.scores
    return BoardKey(
        track_of(card)[0],
        str(dataset.id),
        str(dataset.version),
        str(dataset.sha256),
        str(scores.scoring_profile or "unrecorded"),
        tuple(sorted(str(m) for m in scores.composite_metrics or ())),
    )


def board_order(key: BoardKey) -> tuple[int, BoardKey]:
    """Official boards first, each track by corpus, profile and metric set."""
    return (0 if key.track == OFFICIAL else 1, key)
