"""A validation record's chain to the automated card it extends, and the tier it earns.

``ingest`` writes the record; this module is what ``mteval verify`` needs to check one: the
parent rebuilt and its hash compared, the threshold recomputed from the record's own counts,
and the tier label that follows from them.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.cards.verification_tier import VALIDATED_LABEL
from pytest_mteval.review.sample import SampleError, answered_rows, draw, drawing_hash
from pytest_mteval.scoring.composite import CANDIDATE_LABEL

VALIDATED_SUFFIX: Final = f" {VALIDATED_LABEL}"
#: Ratings that say "usable" (spec §7.2: bilingual speakers agree the output is usable).
USABLE: Final = frozenset({"acceptable", "excellent"})


@dataclass(frozen=True)
class Threshold:
    """When a validation record confirms the automated tier (docs/review.md)."""

    min_reviewers: int = 2
    #: Entries rated by someone, capped at the sample's size.
    min_entries: int = 30
    #: Share of rated entries whose combined rating is acceptable or excellent.
    min_usable: float = 0.8


DEFAULT_THRESHOLD: Final = Threshold()


def minimum_size(card: Mapping[str, Any], min_entries: int = DEFAULT_THRESHOLD.min_entries) -> int:
    """The fewest entries a sample of this card must hold to be able to validate it: the
    threshold's entries, or every answered entry when the run has fewer."""
    return max(1, min(min_entries, len(answered_rows(card))))


def validated_tier(parent_tier: str | None, uncapped: str | None, meets: bool) -> str | None:
    """A candidate becomes "<tier> (community validated)"; any other tier stays as it is."""
    if meets and parent_tier == CANDIDATE_LABEL and uncapped in {"deployable", "fluent"}:
        return f"{uncapped}{VALIDATED_SUFFIX}"
    return parent_tier


def extend(card: Mapping[str, Any], block: Mapping[str, Any]) -> dict[str, Any]:
    """The validated card: the parent plus the block and the tier it earns, re-sealed."""
    child = copy.deepcopy(dict(card))
    scores = child["scores"]
    scores["quality_tier"] = validated_tier(
        scores.get("quality_tier"), scores.get("quality_tier_uncapped"), block["meets_threshold"]
    )
    child["human_validation"] = dict(block)
    runcard.check_before_sealing(child)  # a record that breaks the card's schema is not sealed
    return runcard.seal(child)


def verify_chain(card: Mapping[str, Any], path: Path) -> None:
    """Rebuild the parent of a validated card and check its hash and the tier's label."""
    block = card.get("human_validation")
    if not isinstance(block, Mapping):
        try:
            drawing_hash(card)  # a sealed review sample's block names the card it was drawn from
        except SampleError as exc:
            raise runcard.RunCardError(f"{path}: {exc}") from None
        return
    extends = block.get("extends") or {}
    parent = copy.deepcopy(dict(card))
    del parent["human_validation"]
    parent["scores"]["quality_tier"] = extends.get("quality_tier")
    if runcard.card_hash(parent) != extends.get("run_card_hash"):
        raise runcard.RunCardError(
            f"{path}: human_validation: the card is not its parent "
            f"{str(extends.get('run_card_hash'))[:12]}... plus a validation record"
        )
    parent["run_card_hash"] = extends.get("run_card_hash")
    problem = _sample_problem(block, parent)
    if problem:
        raise runcard.RunCardError(f"{path}: human_validation: {problem}")
    if bool(block.get("meets_threshold")) != _meets(block, minimum_size(parent)):
        raise runcard.RunCardError(
            f"{path}: human_validation: meets_threshold does not follow its own counts"
        )
    expected = validated_tier(
        extends.get("quality_tier"),
        card["scores"].get("quality_tier_uncapped"),
        bool(block.get("meets_threshold")),
    )
    if card["scores"].get("quality_tier") != expected:
        raise runcard.RunCardError(f"{path}: human_validation: tier does not follow the record")


def _sample_problem(block: Mapping[str, Any], parent: Mapping[str, Any]) -> str | None:
    """Why the record's sample and ratings are not the parent's sample drawn with the
    recorded size and seed and ratings of its entries (None when they are)."""
    recorded = block.get("sample")
    per_entry = block.get("per_entry")
    ratings = block.get("ratings")
    if not isinstance(recorded, Mapping) or not isinstance(per_entry, Mapping):
        return "sample and per_entry must be objects"
    size, seed, entries = recorded.get("size"), recorded.get("seed"), recorded.get("entry_ids")
    if not isinstance(size, int) or not isinstance(seed, int) or not isinstance(entries, list):
        return "sample needs integer size and seed and a list of entry_ids"
    try:
        drawn = draw(parent, size, seed)
    except SampleError as exc:
        return f"sample: {exc}"
    if recorded.get("drawn_from", drawn.card_hash) != drawn.card_hash:
        return "sample: drawn_from is not the hash the parent's sample is drawn with"
    if entries != drawn.entry_ids() or recorded.get("sample_id") != drawn.sample_id:
        return f"sample: not the entries drawn from the parent with size {size}, seed {seed}"
    if not set(per_entry) <= set(entries):
        return "per_entry rates entries outside the sample"
    counts = Counter(str(v) for v in per_entry.values())
    if not isinstance(ratings, Mapping) or {k: v for k, v in ratings.items() if v} != counts:
        return "ratings are not the count of per_entry"
    ids = [r.get("id") for r in block.get("reviewers") or [] if isinstance(r, Mapping)]
    if len(set(ids)) != len(ids):
        return "a reviewer id appears twice"
    return None


def _meets(block: Mapping[str, Any], least_entries: int) -> bool:
    """The threshold recomputed from the record's own counts; thresholds looser than the
    defaults, and samples smaller than ``least_entries``, never meet it (ingest refuses
    them)."""
    try:
        limits = block["threshold"]
        ratings = {str(k): int(v) for k, v in block["ratings"].items()}
        rated = sum(ratings.values())
        usable = sum(ratings.get(r, 0) for r in USABLE)
        sample_size = len(block["sample"]["entry_ids"])
        reviewers = len(block["reviewers"])
        loose = (
            limits["min_reviewers"] < DEFAULT_THRESHOLD.min_reviewers
            or sample_size < least_entries
            or limits["min_entries"] < min(DEFAULT_THRESHOLD.min_entries, sample_size)
            or limits["min_usable"] < DEFAULT_THRESHOLD.min_usable
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    return (
        not loose
        and rated == block.get("rated_entries")
        and reviewers >= limits["min_reviewers"]
        and rated >= limits["min_entries"]
        and rated > 0
        and usable / rated >= limits["min_usable"]
    )
