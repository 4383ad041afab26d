"""Which board a verified card stands on, or why it stands on none (benchmark spec §6.4, §9.7;
SCORING: composites are compared over the same metrics only; method interface: "Class X
methods are not listed").

- A card of a class X method is left out of the leaderboard altogether (counted in a note).
- A card whose method declares exposure to the secret entries it is scored on (spec §9.2.1)
  is listed apart with that reason, never ranked.
- A partial (``-k``, filters), interrupted or incomplete card is listed apart with its reason
  and never ranked: its composite is over other entries than a whole run's.
- Every other card shares a board only with cards of the same track, corpus version (dataset
  id, version, sha256), segment, scoring profile and composite metric set.
- The official track holds gold-standard scores (a run of that segment, complete over it, of
  any corpus) run in the network sandbox; development and diagnostic scores stay on the
  development track, below. A run mixing segments is ranked per segment
  (``segment_views.py``): its gold-standard score may be official, its others are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.exposure import EXPOSED_TO_SECRET

OFFICIAL: Final = "official"
DEVELOPMENT: Final = "development"
GOLD_STANDARD: Final = "gold_standard"
#: The dependency class that is never listed (method interface, every track).
UNLISTED_CLASS: Final = "X"


@dataclass(frozen=True, order=True)
class BoardKey:
    """What cards must share to be ranked together."""

    track: str
    dataset_id: str
    version: str
    sha256: str
    #: The one segment the board ranks ("" for a card that records none).
    segment: str
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


def ranked_segment(card: CardView) -> str:
    """The segment a card (or one segment's view of it) is ranked on; "" when not recorded,
    and the segments joined for an older card that ran several and scored them together."""
    return "+".join(card.dataset.covered_segments or ())


def track_of(card: CardView) -> tuple[str, str]:
    """The card's track, and why it is not official when it is not (spec §6.4: official
    scores come from gold_standard evaluation only, §8.2: run in the sandbox)."""
    segment = ranked_segment(card)
    runner = card.runner or {}
    if segment != GOLD_STANDARD:
        return DEVELOPMENT, f"segment {segment or 'not recorded'}"
    if runner.get("sandbox") != "netns" or runner.get("isolated") is not True:
        return DEVELOPMENT, "gold standard, but not run in the network sandbox"
    return OFFICIAL, "gold standard, complete over its segment, sandboxed"


def board_key(card: CardView) -> BoardKey:
    dataset, scores = card.dataset, card.scores
    return BoardKey(
        track_of(card)[0],
        str(dataset.id),
        str(dataset.version),
        str(dataset.sha256),
        ranked_segment(card),
        str(scores.scoring_profile or "unrecorded"),
        tuple(sorted(str(m) for m in scores.composite_metrics or ())),
    )


def board_order(key: BoardKey) -> tuple[int, BoardKey]:
    """Official boards first, each track by corpus, profile and metric set."""
    return (0 if key.track == OFFICIAL else 1, key)
