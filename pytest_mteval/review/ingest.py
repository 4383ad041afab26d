"""Ratings back onto a card: check each reviewer's CSV against the sample, combine reviewers,
and write a new card with a ``human_validation`` block whose hash chain names the card it
extends.

The new card is the automated card plus that block and a relabelled tier, re-sealed; the
block keeps the parent's hash and tier, so :func:`verify_chain` can rebuild the parent and
check its hash: a validation record cannot come with edited scores or outputs.

The sample is the one its record fixes (``sample_record.py``), never one a ratings file names; every
cell read is restored from the spreadsheet-safe form the sheets were written in (``cells``).
Reviewers are recorded as pseudonymous ids (a hash of the name, compared and hashed in the
form ``names`` gives it, salted with the parent's hash); how their ratings combine
and how agreement is measured is in ``agreement``; the chain and the tier it earns are in
``chain``.

The record is signed by the governance organisation's key (``VALIDATION_DOMAIN``, over the
whole record: the parent's hash, the sample and the ratings); only a signed record earns a tier.
A secret run's card has no text to check the reviewers' rows against, so its sample came
sealed: its card must be signed by a key the governance trusts (its own or one given).
"""

from __future__ import annotations

import csv
import datetime
import io
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.signing import sign
from pytest_mteval.cards.verification_tier import VALIDATION_DOMAIN, TrustRoots, signer_among
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_bytes
from pytest_mteval.review import sample_record
from pytest_mteval.review.agreement import agreement, combine
from pytest_mteval.review.chain import (
    DEFAULT_THRESHOLD,
    USABLE,
    Threshold,
    extend,
)
from pytest_mteval.review.csv_cells import restore
from pytest_mteval.review.form import COLUMNS, RATINGS
from pytest_mteval.review.reviewer_names import pseudonym, same_reviewer
from pytest_mteval.review.sample import Sample

_REQUIRED: Final = ("sample_id", "entry_id", "reviewer", "rating")


class ReviewError(MtevalError):
    """Ratings or a card that cannot be ingested; the message is one line."""


@dataclass(frozen=True)
class Signer:
    """The governance key that signs the record, and the keys a secret card may be signed by."""

    key: Ed25519PrivateKey
    roots: TrustRoots = field(default_factory=TrustRoots)

    def card_keys(self) -> tuple[Any, ...]:
        return (self.key.public_key(), *self.roots.maintainer, *self.roots.governance)


@dataclass(frozen=True)
class Review:
    path: Path
    reviewer: str
    dates: tuple[str, ...]
    #: entry id -> rating ("" when the reviewer left it unrated)
    ratings: dict[str, str]


def read_review(path: Path, sample: Sample, card: RunCard) -> Review:
    """One reviewer's CSV, checked row by row against the sample and the card."""
    try:
        text = read_bytes(path, "ratings file", ReviewError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReviewError(f"{path}: cannot read as UTF-8 text: {exc}") from None
    # a cell holds a whole prediction, which may be longer than csv's default field limit
    csv.field_size_limit(max(csv.field_size_limit(), len(text)))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in _REQUIRED if c not in (_fieldnames(reader, path) or [])]
    if missing:
        raise ReviewError(f"{path}: missing column(s) {', '.join(missing)} (expected {COLUMNS})")
    predictions = {item.entry_id: item.prediction for item in sample.items}
    withheld = bool((card.extra("redaction") or {}).get("text_withheld"))
    ratings: dict[str, str] = {}
    reviewers: set[str] = set()
    dates: set[str] = set()
    for raw in _rows(reader, path):
        where = f"{path}: line {reader.line_num}"
        row = {key: restore(value) for key, value in raw.items() if isinstance(value, str)}
        if (row.get("sample_id") or "").strip() != sample.sample_id:
            raise ReviewError(
                f"{where}: field 'sample_id': {row.get('sample_id')!r} is not the recorded "
                f"sample {sample.sample_id}"
            )
        entry = (row.get("entry_id") or "").strip()
        if entry not in predictions:
            raise ReviewError(f"{where}: field 'entry_id': {entry!r} is not in the sample")
        if entry in ratings:
            raise ReviewError(f"{where}: field 'entry_id': {entry!r} rated twice in this file")
        shown = " ".join((row.get("prediction") or "").split())
        # a secret run's card has no output to compare with (its sheets came sealed)
        if shown and not withheld and shown != " ".join(predictions[entry].split()):
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


def _fieldnames(reader: csv.DictReader[str], path: Path) -> Sequence[str] | None:
    try:
        return reader.fieldnames
    except csv.Error as exc:
        raise ReviewError(f"{path}: line 1: not CSV: {exc}") from None


def _rows(reader: csv.DictReader[str], path: Path) -> Iterator[dict[str, Any]]:
    """The rows, a malformed one as one line naming it."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ReviewError(f"{path}: line {reader.line_num}: not CSV: {exc}") from None
        yield row


def validation_block(
    card: RunCard,
    sample: Sample,
    reviews: Sequence[Review],
    threshold: Threshold,
    today: str,
) -> dict[str, Any]:
    for index, review in enumerate(reviews):
        for other in reviews[:index]:
            if same_reviewer(review.reviewer, other.reviewer):
                raise ReviewError(
                    f"{review.path}: reviewer {review.reviewer!r} appears in more than one file "
                    f"(as {other.reviewer!r} in {other.path}; names are compared after Unicode "
                    f"normalisation, case folding and folding look-alike letters)"
                )
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
    parent_hash = card.run_card_hash
    return {
        "protocol": "benchmark spec §7.3",
        "extends": {
            "run_card_hash": parent_hash,
            "run_id": card.run_id,
            "quality_tier": card.scores.quality_tier,
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
        "coverage": {"rated": len(combined), "sample": len(sample.items)},
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


def parse_threshold(min_reviewers: str, min_entries: str, min_usable: str) -> Threshold:
    """The options as a threshold; only stricter ones than the defaults are allowed."""
    default = DEFAULT_THRESHOLD
    reviewers = _whole("--min-reviewers", min_reviewers, default.min_reviewers)
    entries = _whole("--min-entries", min_entries, default.min_entries)
    try:
        usable = float(min_usable)
    except ValueError:
        usable = math.nan
    if not math.isfinite(usable) or not default.min_usable <= usable <= 1:
        raise ReviewError(
            f"--min-usable: {min_usable!r} is not a share in [{default.min_usable}, 1] "
            f"(thresholds may only be stricter than the defaults)"
        )
    return Threshold(reviewers, entries, usable)


def _whole(option: str, text: str, least: int) -> int:
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 9 or int(value) < least:
        raise ReviewError(
            f"{option}: {text!r} is not a whole number >= {least} (thresholds may only be "
            f"stricter than the defaults)"
        )
    return int(value)


def ingest(
    card_path: Path,
    rating_paths: Sequence[Path],
    threshold: Threshold,
    today: str,
    sample_path: Path | None,
    signer: Signer,
) -> dict[str, Any]:
    """Verify the card, read the sample record and every reviewer's file, and return the
    new sealed card with its signed record (its JSON extended: the new hash chain is of that)."""
    card = runcard.load(card_path)
    model = runcard.verify(card, card_path)
    if "human_validation" in model.model_fields_set:
        raise ReviewError(
            f"{card_path}: already carries a validation record; ingest into its parent"
        )
    if not rating_paths:
        raise ReviewError("no ratings file given")
    withheld = bool((model.extra("redaction") or {}).get("text_withheld"))
    if withheld and signer_among(card, signer.card_keys()) is None:
        raise ReviewError(
            f"{card_path}: a secret run's card must be signed by the governance key or one "
            "given with --maintainer-key/--governance-key: its sample came sealed, and only "
            "a trusted card vouches for it"
        )
    try:
        path = sample_path or sample_record.find(card_path, card)
        sample = sample_record.read(path, card, threshold.min_entries)
    except sample_record.SampleRecordError as exc:
        raise ReviewError(str(exc)) from None
    reviews = [read_review(path, sample, model) for path in rating_paths]
    if withheld and (card.get("review_sample") or {}).get("sample_id") != sample.sample_id:
        raise ReviewError(f"{card_path}: field 'review_sample.sample_id': not the sample rated")
    block = validation_block(model, sample, reviews, threshold, today)
    return extend(card, sign(block, signer.key, VALIDATION_DOMAIN))
