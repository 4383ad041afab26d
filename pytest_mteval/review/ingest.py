"""Ratings back onto a card: check each reviewer's CSV against the sample, combine reviewers,
and write a new card with a ``human_validation`` block whose hash chain names the card it
extends.

The new card is the automated card plus that block and a relabelled tier, re-sealed; the
block keeps the parent's hash and tier, so :func:`verify_chain` can rebuild the parent and
check its hash: a validation record cannot come with edited scores or outputs.

Reviewers are recorded as pseudonymous ids (a hash of the name salted with the parent's hash);
how their ratings combine and how agreement is measured is in ``agreement``; the chain and
the tier it earns are in ``chain``.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.errors import MtevalError
from pytest_mteval.review.agreement import agreement, combine
from pytest_mteval.review.chain import (
    DEFAULT_THRESHOLD,
    USABLE,
    Threshold,
    extend,
)
from pytest_mteval.review.form import COLUMNS, RATINGS
from pytest_mteval.review.sample import Sample, SampleError, draw, parse_sample_id

_REQUIRED: Final = ("sample_id", "entry_id", "reviewer", "rating")


class ReviewError(MtevalError):
    """Ratings or a card that cannot be ingested; the message is one line."""


@dataclass(frozen=True)
class Review:
    path: Path
    reviewer: str
    dates: tuple[str, ...]
    #: entry id -> rating ("" when the reviewer left it unrated)
    ratings: dict[str, str]


def read_review(path: Path, sample: Sample, card: Mapping[str, Any]) -> Review:
    """One reviewer's CSV, checked row by row against the sample and the card."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"{path}: cannot read as UTF-8 text: {exc}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in _REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise ReviewError(f"{path}: missing column(s) {', '.join(missing)} (expected {COLUMNS})")
    predictions = {item.entry_id: item.prediction for item in sample.items}
    ratings: dict[str, str] = {}
    reviewers: set[str] = set()
    dates: set[str] = set()
    for row in reader:
        where = f"{path}: line {reader.line_num}"
        if (row.get("sample_id") or "").strip() != sample.sample_id:
            raise ReviewError(
                f"{where}: field 'sample_id': {row.get('sample_id')!r} is not this card's "
                f"sample {sample.sample_id}"
            )
        entry = (row.get("entry_id") or "").strip()
        if entry not in predictions:
            raise ReviewError(f"{where}: field 'entry_id': {entry!r} is not in the sample")
        if entry in ratings:
            raise ReviewError(f"{where}: field 'entry_id': {entry!r} rated twice in this file")
        shown = " ".join((row.get("prediction") or "").split())
        if shown and shown != " ".join(predictions[entry].split()):
            raise ReviewError(
                f"{where}: field 'prediction': differs from the card's output for entry {entry}"
            )
        rating = (row.get("rating") or "").strip().casefold()
        if rating and rating not in RATINGS:
            raise ReviewError(
                f"{where}: field 'rating': {row['rating']!r} is not one of {', '.join(RATINGS)}"
            )
        reviewer = (row.get("reviewer") or "").strip()
        if not reviewer:
            raise ReviewError(f"{where}: field 'reviewer': empty")
        reviewers.add(reviewer)
        date = (row.get("date") or "").strip()
        if date:
            try:
                dates.add(datetime.date.fromisoformat(date).isoformat())
            except ValueError:
                raise ReviewError(f"{where}: field 'date': {date!r} is not YYYY-MM-DD") from None
        ratings[entry] = rating
    if len(reviewers) != 1:
        raise ReviewError(f"{path}: one file per reviewer, found {len(reviewers)} reviewer names")
    if not any(ratings.values()):
        raise ReviewError(f"{path}: no rating in the file")
    return Review(path, reviewers.pop(), tuple(sorted(dates)), ratings)


def sample_of(card: Mapping[str, Any], paths: Sequence[Path]) -> Sample:
    """The sample the files name, re-drawn from the card (so it must be the same card)."""
    for path in paths:
        try:
            with path.open(encoding="utf-8-sig", newline="") as handle:
                first = next(csv.DictReader(handle), None)
        except (OSError, UnicodeDecodeError) as exc:
            raise ReviewError(f"{path}: cannot read as UTF-8 text: {exc}") from None
        if first is None or not (first.get("sample_id") or "").strip():
            raise ReviewError(f"{path}: line 2: field 'sample_id': missing (no rated rows?)")
        try:
            prefix, size, seed = parse_sample_id(first["sample_id"])
        except SampleError as exc:
            raise ReviewError(f"{path}: line 2: field 'sample_id': {exc}") from None
        if not str(card.get("run_card_hash", "")).startswith(prefix):
            raise ReviewError(
                f"{path}: sample {first['sample_id']} was drawn from another card "
                f"(hash {prefix}...), not this one ({str(card.get('run_card_hash'))[:12]}...)"
            )
        return draw(card, size, seed)
    raise ReviewError("no ratings file given")


def pseudonym(name: str, parent_hash: str) -> str:
    digest = hashlib.sha256(f"{parent_hash}:{name.strip().casefold()}".encode()).hexdigest()
    return f"r-{digest[:12]}"


def validation_block(
    card: Mapping[str, Any],
    sample: Sample,
    reviews: Sequence[Review],
    threshold: Threshold,
    today: str,
) -> dict[str, Any]:
    names = [r.reviewer.casefold() for r in reviews]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise ReviewError(f"reviewer {duplicate!r} appears in more than one file")
    combined = combine(reviews)
    distribution = Counter(combined.values())
    usable = sum(distribution[r] for r in USABLE)
    usable_share = usable / len(combined) if combined else 0.0
    needed = min(threshold.min_entries, len(sample.items))
    meets = (
        len(reviews) >= threshold.min_reviewers
        and len(combined) >= needed
        and usable_share >= threshold.min_usable
    )
    parent_hash = str(card["run_card_hash"])
    return {
        "protocol": "benchmark spec §7.3",
        "extends": {
            "run_card_hash": parent_hash,
            "run_id": card.get("run_id"),
            "quality_tier": card["scores"].get("quality_tier"),
        },
        "sample": sample.record(),
        "reviewers": [
            {
                "id": pseudonym(r.reviewer, parent_hash),
                "dates": list(r.dates),
                "rated": sum(1 for v in r.ratings.values() if v),
            }
            for r in reviews
        ],
        "ingested": today,
        "rated_entries": len(combined),
        "ratings": {r: distribution[r] for r in RATINGS},
        "per_entry": combined,
        "usable_share": round(usable_share, 4),
        "agreement": agreement(reviews),
        "threshold": {
            "min_reviewers": threshold.min_reviewers,
            "min_entries": needed,
            "min_usable": threshold.min_usable,
        },
        "meets_threshold": meets,
    }


def check_threshold(threshold: Threshold) -> None:
    """Stricter thresholds than the defaults are allowed, looser ones are not."""
    default = DEFAULT_THRESHOLD
    if (
        threshold.min_reviewers < default.min_reviewers
        or threshold.min_entries < default.min_entries
        or threshold.min_usable < default.min_usable
        or threshold.min_usable > 1
    ):
        raise ReviewError(
            f"thresholds may only be stricter than the defaults (reviewers >= "
            f"{default.min_reviewers}, entries >= {default.min_entries}, usable share in "
            f"[{default.min_usable}, 1])"
        )


def ingest(
    card_path: Path, rating_paths: Sequence[Path], threshold: Threshold, today: str
) -> dict[str, Any]:
    """Verify the card, read every reviewer's file, and return the new sealed card."""
    check_threshold(threshold)
    card = runcard.load(card_path)
    runcard.verify(card, card_path)
    if "human_validation" in card:
        raise ReviewError(
            f"{card_path}: already carries a validation record; ingest into its parent"
        )
    try:
        sample = sample_of(card, rating_paths)
    except SampleError as exc:
        raise ReviewError(f"{card_path}: {exc}") from None
    reviews = [read_review(path, sample, card) for path in rating_paths]
    block = validation_block(card, sample, reviews, threshold, today)
    return extend(card, block)
