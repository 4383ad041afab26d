"""Which board a verified card stands on, or why it stands on none (benchmark spec §6.4, §9.7;
SCORING: composites are compared over the same metrics only; method interface: "Class X
methods are not listed").

- A card of a class X method is left out of the leaderboard altogether (counted in a note).
- A card whose method declares exposure to the secret entries it is scored on (spec §9.2.1)
  is listed apart with that reason, never ranked.
- What is ranked at all is ONE rule (:func:`ranking_reasons`), read by the leaderboard, the
  sweep matrix and ``mteval runs`` alike: a card is ranked only when complete, not an oracle,
  not degenerate, not contradicted by its audit, not exposed to the data it is scored on, and
  given once. Every other card is listed under "Not ranked" with the reason.
- Every other card shares a board only with cards of the same track, corpus version (dataset
  id, version, sha256), segment, scoring profile and composite metric set.
- The official track holds gold-standard scores (a run of that segment, complete over it, of
  any corpus) run in the network sandbox; development and diagnostic scores stay on the
  development track, below. A run mixing segments is ranked per segment
  (``segment_views.py``): its gold-standard score may be official, its others are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.exposure import EXPOSED_TO_SECRET

OFFICIAL: Final = "official"
DEVELOPMENT: Final = "development"
GOLD_STANDARD: Final = "gold_standard"
#: The dependency class that is never listed (method interface, every track).
UNLISTED_CLASS: Final = "X"
#: Flag codes of degenerate output (``scoring/guards.py``; ``wrong_language`` from the language
#: check): the composite of such a run measures no translation.
DEGENERATE_FLAGS: Final = (
    "repeated_output",
    "source_copied",
    "empty_output",
    "wrong_language",
    "many_errors",
)
#: A method scored on the corpus its own data comes from (``oracle_for``): a ceiling.
ORACLE_FLAG: Final = "oracle_method"
#: The static audit found code its declared dependency class forbids.
AUDIT_FLAG: Final = "method_audit_contradiction"


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
    """The reason one card cannot be ranked beside honest whole runs, or None when it can."""
    flags = {flag.code: flag.message for flag in card.flags}
    if EXPOSED_TO_SECRET in flags:
        return "the method declares exposure to the gold_standard/held_out entries scored"
    if card.interrupted is True:
        return "interrupted run"
    if card.coverage is not None and card.coverage.complete is False:
        reasons = "; ".join(str(r) for r in card.coverage.reasons) or "partial run"
        return f"partial run: {reasons}"
    if card.complete is False:
        return f"incomplete run: {card.incomplete_reason or 'entries failed'}"
    total, errors = card.scores.total, card.scores.errors
    if total and errors is not None and errors >= total:
        return f"every entry errored ({errors} of {total}): nothing was translated"
    if ORACLE_FLAG in flags:
        return f"oracle ({ORACLE_FLAG}): its score is a ceiling, not a fair result"
    for code in DEGENERATE_FLAGS:
        if code in flags:
            return f"degenerate output ({code}): {flags[code]}"
    if AUDIT_FLAG in flags:
        return f"contradicted by its audit ({AUDIT_FLAG}): {flags[AUDIT_FLAG]}"
    return None


def ranking_reasons(cards: Sequence[tuple[str, CardView]]) -> list[str | None]:
    """Why each (place, card) is not ranked, None for each ranked one: the one rule.

    A run given twice (same run id or run card hash) is listed once: its later copies are
    not ranked, whatever the first copy's own fate. A run's segment views (``segment_views``)
    are one run's scores on different segments, not copies of each other.
    """
    seen: dict[str, str] = {}
    reasons: list[str | None] = []
    for place, card in cards:
        segment = ranked_segment(card)
        keys = [f"run id {card.run_id} {segment}"]
        keys += [f"hash {card.run_card_hash} {segment}"] if card.run_card_hash else []
        first = next((seen[key] for key in keys if key in seen), None)
        for key in keys:
            seen.setdefault(key, place)
        if first is not None:
            reasons.append(f"duplicate: the same run as {first}, listed once")
        else:
            reasons.append(why_not_ranked(card))
    return reasons


def rank_spans(intervals: Sequence[tuple[float | None, float | None]]) -> list[tuple[int, int]]:
    """The span of ranks each interval allows among the others (unscored share last place).

    Above an interval stand only those wholly above it; below, those wholly below.
    """
    count = len(intervals)
    unscored = sum(1 for low, _ in intervals if low is None)
    spans: list[tuple[int, int]] = []
    for low, high in intervals:
        if low is None or high is None:
            spans.append((count, count))
            continue
        better = sum(1 for lo, _ in intervals if lo is not None and lo > high)
        worse = sum(1 for _, hi in intervals if hi is not None and hi < low)
        spans.append((1 + better, count - worse - unscored))
    return spans


def rank_text(span: tuple[int, int]) -> str:
    """A rank as every listing shows it: one place, or a tie's span."""
    low, high = span
    return str(low) if low == high else f"{low}–{high}"


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
