"""A secret run's review sample, sealed to the steward (spec §7.3, §8.2, §9.4).

A gold-standard run's card carries scores only, so ``mteval review sample`` has no text to
show. At the end of such a run the harness draws the sample ``review sample`` would draw (the
same stratified, seeded draw, on the redacted, sealed card), puts the sampled entries' source,
reference and prediction in ONE file sealed to the steward's X25519 public key
(``sealed_box``), and records on the card the file's name, sha256, sample id, the key it is
sealed to and the hash it was drawn from (block ``review_sample``; the card is then sealed
again, so ``drawing_hash`` finds the draw's hash by leaving the block out). The texts go
nowhere else: not the card, the terminal, the cache or the logs. The steward opens the file
with ``mteval review open`` into the usual sheets, and ``mteval review ingest`` checks the
ratings against the gold card's own draw.

Anyone holding the steward's PUBLIC key can seal a file to it, so a sealed file proves
nothing by itself: ``review open`` takes it only with the card that names it, signed by a key
the steward trusts (the card's signature covers its ``review_sample`` block), and checks that
what it holds is that card's own draw (``check_opened``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from pytest_mteval.cards.runcard import seal
from pytest_mteval.json_files import parse_json, read_bytes
from pytest_mteval.review import sample_record
from pytest_mteval.review.chain import minimum_size
from pytest_mteval.review.sample import (
    DEFAULT_SIZE,
    Item,
    Sample,
    SampleError,
    draw,
    drawing_hash,
)
from pytest_mteval.review.sealed_box import (
    SCHEME,
    SealedBoxError,
    key_id,
    open_box,
    write_exclusive,
)
from pytest_mteval.review.sealed_box import seal as seal_box

KIND: Final = "mteval sealed review sample"
SUFFIX: Final = ".sealed"


def title_of(card: Mapping[str, Any]) -> str:
    return f"Review of {card.get('model_slug', '?')} on {card['dataset'].get('id', '?')}"


def seal_review_sample(
    card: dict[str, Any],
    records: Sequence[Mapping[str, Any]],
    steward: X25519PublicKey,
    folder: Path,
    size: int = DEFAULT_SIZE,
) -> Path | None:
    """Write the sealed sample of a sealed, redacted ``card`` beside it and record it on the
    card (sealed again). ``records`` are the run's rows with their texts. A sample that cannot
    be drawn or written leaves a flag saying why, never a lost card: None."""
    try:
        needed = minimum_size(card)
        if size < needed:
            raise SampleError(
                f"--mteval-review-sample-size {size}: a review sample needs at least {needed} "
                "entries to validate the card"
            )
        drawn = draw(card, size)
        texts = {str(row.get("entry_id")): row for row in records}
        items = [
            Item(
                entry_id=item.entry_id,
                source=str(texts[item.entry_id].get("source") or ""),
                prediction=str(texts[item.entry_id].get("predicted") or ""),
                reference=str(texts[item.entry_id].get("expected") or ""),
                stratum=item.stratum,
            )
            for item in drawn.items
        ]
        document = {
            "kind": KIND,
            "format": 1,
            "title": title_of(card),
            "record": sample_record.content(drawn, card),
            "items": [asdict(item) for item in items],
        }
        plaintext = json.dumps(document, ensure_ascii=False).encode("utf-8")
        data = seal_box(plaintext, steward)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"review-{drawn.sample_id}{SUFFIX}"
        write_exclusive(path, data, 0o644)
    except (SampleError, SealedBoxError, KeyError, OSError) as exc:
        card.setdefault("flags", []).append(
            {
                "code": "review_sample_not_written",
                "message": f"no review sample was sealed to the steward: {exc}",
                "entry_ids": [],
            }
        )
        seal(card)
        return None
    card["review_sample"] = {
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "sample_id": drawn.sample_id,
        "entries": len(items),
        "scheme": SCHEME,
        "sealed_to_key_sha256": key_id(steward),
        "drawn_from": drawn.card_hash,
    }
    seal(card)
    return path


def open_sample(path: Path, key: X25519PrivateKey) -> tuple[Sample, str, str | None]:
    """The sample sealed in ``path``, its title and run id; SealedBoxError in one line."""
    data = read_bytes(path, "sealed review sample", SealedBoxError)
    try:
        document = parse_json(open_box(data, key, str(path)), str(path), SealedBoxError)
        if document.get("kind") != KIND:
            raise SealedBoxError(f"{path}: not a sealed review sample (kind {KIND!r})")
        kept = document["record"]
        items = tuple(Item(**{k: str(v) for k, v in item.items()}) for item in document["items"])
        drawn = Sample(
            sample_id=str(kept["sample_id"]),
            card_hash=str(kept["card_hash"]),
            size=int(kept["size"]),
            seed=int(kept["seed"]),
            stratified_by=str(kept["stratified_by"]),
            strata=dict(kept["strata"]),
            items=items,
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SealedBoxError(f"{path}: the sealed sample is not readable ({exc})") from None
    if drawn.entry_ids() != kept.get("entry_ids"):
        raise SealedBoxError(f"{path}: items are not the recorded entries")
    return drawn, str(document.get("title") or ""), kept.get("run_id")


def check_against_card(path: Path, card: Mapping[str, Any]) -> None:
    """The sealed file is the one the card records (name and sha256)."""
    block = card.get("review_sample")
    if not isinstance(block, Mapping):
        raise SealedBoxError("the card records no sealed review sample (field 'review_sample')")
    digest = hashlib.sha256(read_bytes(path, "sealed review sample", SealedBoxError)).hexdigest()
    if digest != block.get("sha256"):
        raise SealedBoxError(
            f"{path}: sha256 {digest[:12]}… is not the card's review_sample.sha256 "
            f"{str(block.get('sha256'))[:12]}…"
        )


def check_opened(drawn: Sample, card: Mapping[str, Any], path: Path) -> None:
    """What the sealed file holds is the card's own sample: drawn from its hash, with the
    seed that hash fixes, of the entries that draw picks, under the id the card records."""
    block = card.get("review_sample")
    if not isinstance(block, Mapping):
        raise SealedBoxError("the card records no sealed review sample (field 'review_sample')")
    try:
        basis = drawing_hash(card)
        own = draw(card, drawn.size)
    except SampleError as exc:
        raise SealedBoxError(f"{path}: {exc}") from None
    if drawn.card_hash != basis:
        raise SealedBoxError(
            f"{path}: field 'record.card_hash': drawn from card {drawn.card_hash[:12]}…, not "
            f"this card {basis[:12]}…"
        )
    if drawn.sample_id != block.get("sample_id") or drawn.sample_id != own.sample_id:
        raise SealedBoxError(
            f"{path}: field 'record.sample_id': {drawn.sample_id!r} is not the card's own "
            f"sample {own.sample_id}"
        )
    if drawn.entry_ids() != own.entry_ids():
        raise SealedBoxError(f"{path}: items are not the entries the card's own draw picks")
