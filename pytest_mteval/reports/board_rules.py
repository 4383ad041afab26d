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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pytest_mteval.cards.exposure import exposed_to_secret

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


def dependency_class(card: Mapping[str, Any]) -> str | None:
    method: Mapping[str, Any] = card.get("method") or {}
    public: Mapping[str, Any] = card.get("method_card") or {}
    found = method.get("dependency_class") or public.get("dependency_class")
    return str(found) if found else None


def unlisted(card: Mapping[str, Any]) -> bool:
    """Whether the card's method is of a class that is never listed."""
    return dependency_class(card) == UNLISTED_CLASS


def why_not_ranked(card: Mapping[str, Any]) -> str | None:
    """The reason a card cannot be ranked beside whole runs, or None when it can."""
    if exposed_to_secret(dict(card)):
        return "the method declares exposure to the gold_standard/held_out entries scored"
    if card.get("interrupted") is True:
        return "interrupted run"
    coverage: Mapping[str, Any] = card.get("coverage") or {}
    if coverage.get("complete") is False:
        reasons = "; ".join(str(r) for r in coverage.get("reasons") or ()) or "partial run"
        return f"partial run: {reasons}"
    if card.get("complete") is False:
        return f"incomplete run: {card.get('incomplete_reason') or 'entries failed'}"
    return None


def track_of(card: Mapping[str, Any]) -> tuple[str, str]:
    """The card's track, and why it is not official when it is not."""
    segments: Mapping[str, Any] = (card.get("dataset") or {}).get("segments") or {}
    runner: Mapping[str, Any] = card.get("runner") or {}
    if segments.get("covered") != ["gold_standard"]:
        covered = ", ".join(segments.get("covered") or ()) or "not recorded"
        return DEVELOPMENT, f"segments {covered}"
    if runner.get("sandbox") != "netns" or runner.get("isolated") is not True:
        return DEVELOPMENT, "gold standard, but not run in the network sandbox"
    return OFFICIAL, "gold standard, complete, sandboxed"


def board_key(card: Mapping[str, Any]) -> BoardKey:
    dataset: Mapping[str, Any] = card["dataset"]
    scores: Mapping[str, Any] = card.get("scores") or {}
    return BoardKey(
        track_of(card)[0],
        str(dataset["id"]),
        str(dataset["version"]),
        str(dataset["sha256"]),
        str(scores.get("scoring_profile") or "unrecorded"),
        tuple(sorted(str(m) for m in scores.get("composite_metrics") or ())),
    )


def board_order(key: BoardKey) -> tuple[int, BoardKey]:
    """Official boards first, each track by corpus, profile and metric set."""
    return (0 if key.track == OFFICIAL else 1, key)
