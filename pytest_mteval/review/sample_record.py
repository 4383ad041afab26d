"""The sample record: what ``mteval review sample`` drew, written beside the sheets, and the
only thing ``mteval review ingest`` takes the sample from.

A ratings file names a sample id, but it does not get to choose the sample: the record fixes
the card's hash, the size and the seed, ingest re-draws the sample from the card with them and
checks the record's entries against the draw (so a record cannot pick its entries either),
the seed must be the one the card's hash fixes, and a sample smaller than the threshold's
entries is refused when drawn and when ingested (so ``-n 1`` cannot stand for a review).
Coverage is counted against the recorded size.
The record's ``card_hash`` is the hash the sample was drawn with (``sample.drawing_hash``):
the card's own, or, on a secret run's card, its hash before the sealed sample was recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards.verification_tier import review_seed
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.review.chain import minimum_size
from pytest_mteval.review.sample import Sample, SampleError, draw, drawing_hash

KIND: Final = "mteval review sample"
SUFFIX: Final = ".sample.json"


class SampleRecordError(MtevalError):
    """A sample record that is unreadable or does not hold for the card; one line."""


def path_for(folder: Path, drawn: Sample) -> Path:
    return folder / f"review-{drawn.sample_id}{SUFFIX}"


def content(drawn: Sample, card: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "kind": KIND,
        "card_hash": drawn.card_hash,
        "run_id": card.get("run_id"),
        **drawn.record(),
    }


def write(path: Path, drawn: Sample, card: Mapping[str, Any]) -> None:
    text = json.dumps(content(drawn, card), indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


def find(card_path: Path, card: Mapping[str, Any]) -> Path:
    """The one sample record of this card in the card's folder (``--sample`` names another)."""
    try:
        prefix = drawing_hash(card)[:12]
    except SampleError as exc:
        raise SampleRecordError(f"{card_path}: {exc}") from None
    found = sorted(card_path.parent.glob(f"review-{prefix}-n*{SUFFIX}"))
    if len(found) != 1:
        what = "no sample record" if not found else f"{len(found)} sample records"
        raise SampleRecordError(
            f"{card_path.parent}: {what} review-{prefix}-n*{SUFFIX} of this card; name the "
            f"one `mteval review sample` wrote with --sample"
        )
    return found[0]


def read(path: Path, card: Mapping[str, Any], min_entries: int) -> Sample:
    """The sample the record at ``path`` fixes, re-drawn from ``card`` and checked."""
    raw = read_json(path, "sample record", SampleRecordError)
    if not isinstance(raw, dict) or raw.get("kind") != KIND:
        raise SampleRecordError(f'{path}: not a sample record (no "kind": {KIND!r})')
    try:
        card_hash = drawing_hash(card)
    except SampleError as exc:
        raise SampleRecordError(f"{path}: {exc}") from None
    recorded = raw.get("card_hash")
    if recorded != card_hash:
        shown = recorded[:12] if isinstance(recorded, str) else repr(recorded)
        raise SampleRecordError(
            f"{path}: field 'card_hash': drawn from card {shown}..., not this card "
            f"{card_hash[:12]}..."
        )
    size, seed = _integer(path, raw, "size"), _integer(path, raw, "seed")
    if seed != review_seed(card_hash):
        raise SampleRecordError(
            f"{path}: field 'seed': {seed} is not the seed the card's hash fixes "
            f"({review_seed(card_hash)}); a review sample's seed is never chosen"
        )
    needed = minimum_size(card, min_entries)
    if size < needed:
        raise SampleRecordError(
            f"{path}: field 'size': a sample of {size} cannot validate the card; it needs "
            f"at least {needed} entries (draw one with `mteval review sample -n {needed}`)"
        )
    try:
        drawn = draw(card, size, seed)
    except SampleError as exc:
        raise SampleRecordError(f"{path}: {exc}") from None
    if raw.get("sample_id") != drawn.sample_id:
        raise SampleRecordError(
            f"{path}: field 'sample_id': {raw.get('sample_id')!r} is not the id of its own "
            f"card, size and seed ({drawn.sample_id})"
        )
    if raw.get("entry_ids") != drawn.entry_ids():
        raise SampleRecordError(
            f"{path}: field 'entry_ids': not the entries drawn from this card with size "
            f"{size} and seed {seed}"
        )
    return drawn


def _integer(path: Path, raw: Mapping[str, Any], field: str) -> int:
    value = raw.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SampleRecordError(f"{path}: field {field!r}: {value!r} is not an integer")
    return value
