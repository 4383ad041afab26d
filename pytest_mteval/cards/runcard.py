"""The run card (benchmark spec §3): its schema, fingerprint and hash, and how it is written,
read and verified.

Encodings, fixed so anyone can re-check a card without this code:
- fingerprint = sha256 of the ordered concatenation of spec §3.8's eight components, as
  ``cards/fingerprint.py`` writes it out; a card sealed before issue 42 carries the older
  form (sha256 of their JSON array), which still verifies;
- run_card_hash = sha256 of the UTF-8 bytes of ``json.dumps(card, sort_keys=True,
  ensure_ascii=False)`` with ``run_card_hash`` set to "" (spec §3.9) and without the
  ``signature`` key, which is added after sealing (``cards/signing.py``); a card without a
  signature hashes exactly as before signatures existed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final

from pydantic import TypeAdapter, ValidationError

from pytest_mteval.cards import fingerprint as fingerprints
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.metrics.entry_record import ResultRow


class RunCardError(MtevalError):
    """A run card that cannot be read or does not verify; the message is one line."""


def check_before_sealing(card: Mapping[str, Any]) -> RunCard:
    """Refuse a card that does not match its own schema, before it is hashed and written;
    the card as the model its readers take (its rows are the card's own dicts).

    Strict: a score that is text or true/false where a number belongs is a bug in whatever
    wrote it (a metric, a method's card fields, a plugin's hook), never converted. Raises
    RunCardError with one line naming the field.
    """
    return _checked(card, rows=True)


def built(card: Mapping[str, Any]) -> RunCard:
    """A card being built, as the model the gate reads, checked as ``check_before_sealing``
    checks it but for its rows, which are the run's records until the card is sealed (they
    are checked then). RunCardError as ``check_before_sealing``."""
    return _checked(card, rows=False)


def _checked(card: Mapping[str, Any], rows: bool) -> RunCard:
    try:
        complete = {**card, "fingerprint": fingerprint(card)}
    except (KeyError, TypeError) as exc:
        raise RunCardError(f"run card refused: fingerprint component missing: {exc}") from None
    try:
        if rows:
            return _validate_in_parts(complete)
        return _with_rows(RunCard.model_validate({**complete, "results": []}, strict=True), card)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        got = type(err["input"]).__name__
        raise RunCardError(f"run card refused: field {where!r}: {err['msg']} (got {got})") from None


#: Result rows validated at once: a validated copy of every row of a 100,000-entry card would
#: cost about 100 MB more at the end of the run.
_ROWS_AT_ONCE: Final = 2_000
_ROWS: Final = TypeAdapter(list[ResultRow])


def _validate_in_parts(card: Mapping[str, Any]) -> RunCard:
    """``RunCard.model_validate(card, strict=True)``, the result rows a block at a time, and
    the model holding the card's own rows (not validated copies, which drop unknown keys).

    Only a card that fails is validated whole again, so the error reported is the one the
    whole validation reports first, exactly as before.
    """
    rows = card.get("results")
    if not isinstance(rows, list):
        return RunCard.model_validate(card, strict=True)
    try:
        model = RunCard.model_validate({**card, "results": []}, strict=True)
        for start in range(0, len(rows), _ROWS_AT_ONCE):
            _ROWS.validate_python(rows[start : start + _ROWS_AT_ONCE], strict=True)
    except ValidationError:
        RunCard.model_validate(card, strict=True)  # names the first error, as it always has
        raise
    return _with_rows(model, card)


def _with_rows(model: RunCard, card: Mapping[str, Any]) -> RunCard:
    """``model`` with the card's own result rows (a row is a dict at run time: no copy)."""
    model.results = card.get("results") or []
    return model


def not_json(value: Any, where: str = "") -> str | None:
    """Where ``value`` first holds something JSON cannot encode (a set, an object, NaN...), as
    a dotted path; None when all of it is plain JSON. For the message only: it walks the card."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where or 'the card'} (a key of type {type(key).__name__})"
            found = not_json(item, f"{where}.{key}" if where else key)
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = not_json(item, f"{where}.{index}")
            if found is not None:
                return found
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if value is None or isinstance(value, str | int | float):
        return None
    return where


def fingerprint(card: Mapping[str, Any]) -> str:
    """The spec's fingerprint (§3.8) a card is sealed with (``cards/fingerprint.py``)."""
    return fingerprints.fingerprint(card)


def card_hash(card: Mapping[str, Any]) -> str:
    unsealed = {**card, "run_card_hash": ""}
    unsealed.pop("signature", None)
    digest = hashlib.sha256()
    for chunk in canonical_chunks(unsealed):
        digest.update(chunk.encode("utf-8"))
    return digest.hexdigest()


def canonical_chunks(card: Mapping[str, Any]) -> Iterator[str]:
    """``json.dumps(card, sort_keys=True, ensure_ascii=False)`` in pieces, one top-level value
    or one result row at a time, so a 100,000-row card is never one string in memory.

    Joined, the pieces are exactly that string: default separators, keys sorted at every level
    (the C encoder sorts each row). A card whose top-level keys are not all strings is encoded
    in one piece, so the encoder converts and sorts them as it always has.
    """
    dump = partial(json.dumps, sort_keys=True, ensure_ascii=False)
    if not all(isinstance(key, str) for key in card):
        yield dump(card)
        return
    yield "{"
    for position, key in enumerate(sorted(card)):
        value = card[key]
        yield f"{', ' if position else ''}{dump(key)}: "
        if key == "results" and isinstance(value, list) and value:
            yield "["
            for index, row in enumerate(value):
                yield f", {dump(row)}" if index else dump(row)
            yield "]"
        else:
            yield dump(value)
    yield "}"


def seal(card: dict[str, Any]) -> dict[str, Any]:
    """Set fingerprint and hash; the card must not change afterwards."""
    card["fingerprint"] = fingerprint(card)
    card["run_card_hash"] = card_hash(card)
    return card


def render(card: Mapping[str, Any]) -> bytes:
    """The card as UTF-8 JSON, one top-level key and one result row per line.

    Readable with ``less`` and diffable line by line, yet written by the C JSON encoder (an
    ``indent`` makes the json module fall back to pure Python: seconds on 10,000 entries).
    """
    return b"".join(rendered_chunks(card))


def rendered_chunks(card: Mapping[str, Any]) -> Iterator[bytes]:
    """``render(card)`` in pieces (one top-level key or one result row each), for writing a
    large card without holding all of it as text. Encoding errors (NaN, a set) surface before
    the first piece of the value that holds them is yielded."""
    dump = partial(json.dumps, ensure_ascii=False, allow_nan=False)
    yield b"{\n"
    for position, (key, value) in enumerate(card.items()):
        lead = ",\n" if position else ""
        if key == "results" and isinstance(value, list) and value:
            yield f'{lead}  "results": [\n    '.encode()
            for index, row in enumerate(value):
                yield (f",\n    {dump(row)}" if index else dump(row)).encode("utf-8")
            yield b"\n  ]"
        else:
            yield f"{lead}  {dump(key)}: {dump(value)}".encode()
    yield b"\n}\n"


def write_new(card: dict[str, Any], path: Path) -> Path:
    """Write atomically to ``path``, or to a sibling named after the run when ``path`` exists.

    A run card is never overwritten: it may be the only record of a paid run.
    """
    tmp = _synced_temp_file(rendered_chunks(card), path.parent)
    try:
        for candidate in (path, path.with_name(f"{path.stem}-{card['run_id'][:8]}{path.suffix}")):
            try:
                os.link(tmp, candidate)  # fails instead of replacing an existing file
                return candidate
            except FileExistsError:
                continue
        raise RunCardError(f"{path}: exists, and so does the fallback name; card not written")
    finally:
        os.unlink(tmp)


def replace(card: Mapping[str, Any], path: Path) -> None:
    """Atomically replace ``path`` (for updating a baseline on purpose)."""
    os.replace(_synced_temp_file(rendered_chunks(card), path.parent), path)


def _synced_temp_file(chunks: Iterable[bytes], folder: Path) -> str:
    """A temporary file in ``folder`` (same filesystem, so linking or renaming is atomic),
    removed again if encoding a chunk fails half-way."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".runcard-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(chunks)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def load(path: Path) -> dict[str, Any]:
    """Read a card as JSON, with a one-line reason on failure."""
    raw = read_json(path, "run card", RunCardError)
    if not isinstance(raw, dict):
        raise RunCardError(f"{path}: a run card is a JSON object")
    return raw


def read(path: Path) -> RunCard:
    """The verified card at ``path`` as the model every reader takes; RunCardError with the
    first problem (``load``, then ``verify``)."""
    return verify(load(path), path)


def verify(card: dict[str, Any], path: Path) -> RunCard:
    """Check schema, fingerprint and hash; raise RunCardError with the first problem. The
    card as the model its readers take (its rows are the card's own dicts).

    The schema is checked strictly, as before sealing: a score that is text ("0.999") or
    true/false where a number belongs is refused, never converted, so what ``mteval show``
    and the leaderboard read is what the schema says."""
    try:
        model = _validate_in_parts(card)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise RunCardError(f"{path}: schema: field {where!r}: {err['msg']}") from None
    if card_hash(card) != card["run_card_hash"]:
        raise RunCardError(f"{path}: run_card_hash does not match the content (edited?)")
    try:
        form = fingerprints.form_of(card)  # the spec's form, or the older cards' JSON array
    except (KeyError, TypeError) as exc:  # batch_size may be absent from a valid schema
        raise RunCardError(f"{path}: fingerprint component missing: {exc}") from None
    if form is None:
        raise RunCardError(f"{path}: fingerprint does not match its eight components")
    return model


def json_schema() -> dict[str, Any]:
    return RunCard.model_json_schema()
