"""The envelope of an imported corpus (spec §2.1): options over a small TOML file over what
the input says, then the defaults that are facts (today's date, the provenance tags used)."""

from __future__ import annotations

import datetime
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_mteval.corpus import CorpusError, Dataset, validation_message
from pytest_mteval.corpus_model import envelope_problems
from pytest_mteval.corpus_tools.entries import ENTRY_FIELDS

ENVELOPE_FIELDS: tuple[str, ...] = tuple(Dataset.model_fields)
#: Fields a default (``--segment development``...) can fill where a row leaves them empty.
DEFAULTABLE: tuple[str, ...] = (
    "segment",
    "difficulty",
    "provenance",
    "register",
    "context",
    "domain",
)


def read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"{path}: not a valid UTF-8 TOML file: {exc}") from None
    for table in ("dataset", "defaults", "columns"):
        if not isinstance(raw.get(table, {}), dict):
            raise CorpusError(f"{path}: [{table}] must be a table")
    unknown = set(raw) - {"dataset", "defaults", "columns"}
    if unknown:
        raise CorpusError(
            f"{path}: unknown table {sorted(unknown)[0]!r}: "
            "expected [dataset], [defaults], [columns]"
        )
    provenance = raw.get("dataset", {}).get("provenance", [])
    if not isinstance(provenance, list) or not all(isinstance(t, str) for t in provenance):
        raise CorpusError(f"{path}: [dataset] provenance must be a list of strings")
    for key in raw.get("defaults", {}):
        if key not in DEFAULTABLE:
            raise CorpusError(
                f"{path}: [defaults] {key!r}: expected one of {', '.join(DEFAULTABLE)}"
            )
    return raw


def toml_columns(path: Path | None, toml: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    columns: dict[str, tuple[str, ...]] = {}
    for name, value in toml.get("columns", {}).items():
        headers = [value] if isinstance(value, str) else value
        if (
            name not in ENTRY_FIELDS
            or not isinstance(headers, list)
            or not all(isinstance(h, str) for h in headers)
        ):
            raise CorpusError(
                f"{path}: [columns] {name!r}: expected an entry field ({', '.join(ENTRY_FIELDS)}) "
                "= a column name (or a list of them for variants)"
            )
        columns[name] = tuple(headers)
    return columns


def build_envelope(
    base: Mapping[str, Any],
    given: Mapping[str, Any],
    entries: Sequence[Mapping[str, Any]],
    origin: Path,
) -> dict[str, Any]:
    """The dataset envelope: the options over the TOML over what the input says, then the
    defaults that are facts (today's date, the provenance tags actually used)."""
    unknown = [k for k in given if k not in ENVELOPE_FIELDS]
    if unknown:
        raise CorpusError(
            f"envelope field {unknown[0]!r} is not one of {', '.join(ENVELOPE_FIELDS)} (spec §2.1)"
        )
    dataset: dict[str, Any] = {**base, **{k: v for k, v in given.items() if v not in (None, "")}}
    dataset.setdefault("version", "1.0.0")
    dataset.setdefault("created", datetime.datetime.now(datetime.UTC).date().isoformat())
    tags = sorted({str(e["provenance"]) for e in entries if e.get("provenance")})
    dataset["provenance"] = sorted(set(dataset.get("provenance") or []) | set(tags))
    src, tgt = dataset.get("source_language"), dataset.get("target_language")
    if src and tgt:
        dataset.setdefault("language_pair", f"{str(src).upper()}→{str(tgt).upper()}")
    hints = {
        "id": "--id NAME (e.g. eng-crk-community-v1)",
        "source_language": "--source-language CODE (BCP 47, e.g. en)",
        "target_language": "--target-language CODE (BCP 47, e.g. crk)",
        "license": "--license SPDX-ID (e.g. CC-BY-4.0)",
    }
    missing = [name for name in hints if not dataset.get(name)]
    try:
        Dataset.model_validate(dataset)
        wrong = ""
    except ValidationError as exc:
        wrong = validation_message(exc, missing=not missing)
    if missing:  # all at once: one attempt, not one per field
        names = ", ".join(repr(name) for name in missing)
        raise CorpusError(
            f"{origin}: the envelope needs {names} (spec §2.1): pass "
            + ", ".join(hints[name] for name in missing)
            + (" or set it" if len(missing) == 1 else " or set them")
            + " under [dataset] in --envelope FILE.toml"
            + (f"; and envelope: {wrong}" if wrong else "")
        )
    wrong = "; ".join([wrong, *envelope_problems(dataset)] if wrong else envelope_problems(dataset))
    if wrong:
        raise CorpusError(f"envelope: {wrong}")
    ordered = [k for k in ENVELOPE_FIELDS if k in dataset]
    return {k: dataset[k] for k in ordered + [k for k in dataset if k not in ordered]}
