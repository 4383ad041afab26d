"""Rows of cells -> entry dicts of spec §2.2, validated by the loader's own model; every row
refused is recorded with the reason, the column named as the input names it."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import ValidationError

from pytest_mteval.corpus import DOMAINS, Entry, Segment, validation_message
from pytest_mteval.corpus_tools.rows import Row, cell_problem

#: Where an entry may sit (spec §2.2), in sorted order for messages.
SEGMENTS: tuple[str, ...] = tuple(sorted(get_args(Segment)))
#: Fields a corpus entry carries as mappings, not as one cell of a row.
_NOT_A_COLUMN = frozenset({"terms", "metadata"})
#: Entry fields a column can fill: the loader's own model, by the names files use
#: (``register``, not its Python name); ``variants`` may take several columns.
ENTRY_FIELDS: tuple[str, ...] = tuple(
    info.alias or name for name, info in Entry.model_fields.items() if name not in _NOT_A_COLUMN
)


@dataclass(frozen=True)
class Skipped:
    where: str
    reason: str

    def line(self) -> str:
        return f"{self.where}: skipped: {self.reason}"


def stable_id(source: str) -> int:
    """A number from the source text alone (NFC, spacing collapsed): the same sentence gets the
    same id in every import, whatever the row order."""
    text = " ".join(unicodedata.normalize("NFC", source).split())
    # 48 bits: below 2**53, so JavaScript reads it exactly; a collision among 10,000 sources
    # has a chance of about 2e-7, and would be reported as a duplicate id, never merged.
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


class EntryBuilder:
    """Rows -> entry dicts, validated by the loader's own model; each refusal is recorded."""

    def __init__(self, defaults: Mapping[str, Any], separator: str, encoding: str) -> None:
        self.defaults = {k: str(v) for k, v in defaults.items()}
        self.separator = separator
        self.encoding = encoding
        self.entries: list[dict[str, Any]] = []
        self.skipped: list[Skipped] = []
        self.rows = 0
        self._ids: dict[str, str] = {}
        self._pairs: dict[tuple[str, str], str] = {}
        self._sources: dict[str, str] = {}

    def add(self, row: Row) -> None:
        self.rows += 1
        problem = row.problem or self._problem(row)
        if problem is not None:
            self.skipped.append(Skipped(row.where, problem))

    def _problem(self, row: Row) -> str | None:
        label = row.labels.get
        for name, value in row.cells.items():
            reason = cell_problem(label(name, name), value, self.encoding)
            if reason is not None:
                return reason
        cells = {k: v.strip() for k, v in row.cells.items()}
        for name in ("source", "reference"):
            if not cells.get(name):
                return f"column {label(name, name)!r}: empty {name}"
        for name, value in self.defaults.items():
            if not cells.get(name):
                cells[name] = value
        raw, problem = self._typed(cells, label)
        if problem is not None:
            return problem
        source, reference = raw["source"], raw["reference"]
        first = self._pairs.get((source, reference))
        if first is not None:
            return f"duplicate of {first} (same source and reference)"
        first = self._sources.get(source)
        if first is not None:
            return (
                f"column {label('source', 'source')!r}: same source as {first} with another "
                "reference: add this translation to that row's variants instead"
            )
        key = str(raw["id"])
        if key in self._ids:
            return f"column {label('id', 'id')!r}: id {key} already used by {self._ids[key]}"
        if row.metadata:
            raw["metadata"] = row.metadata
        try:
            Entry.model_validate(raw)
        except ValidationError as exc:
            return validation_message(exc)
        self._ids[key] = self._pairs[(source, reference)] = self._sources[source] = row.where
        self.entries.append(raw)
        return None

    def _typed(self, cells: dict[str, str], label: Any) -> tuple[dict[str, Any], str | None]:
        """Cells as the entry's typed fields, or why a cell cannot be one."""
        raw: dict[str, Any] = {
            "id": None,
            "source": cells["source"],
            "reference": cells["reference"],
        }
        raw["id"] = _id_value(cells["id"]) if cells.get("id") else stable_id(cells["source"])
        segment = cells.get("segment") or "development"
        segment = "_".join(segment.casefold().replace("-", " ").split())
        if segment not in SEGMENTS:
            where = label("segment", "--segment")
            return (
                raw,
                f"column {where!r}: {cells['segment']!r} is not one of {', '.join(SEGMENTS)}",
            )
        raw["segment"] = segment
        if cells.get("difficulty"):
            value = cells["difficulty"]
            if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= 5:
                where = label("difficulty", "--difficulty")
                return raw, f"column {where!r}: {value!r} is not a difficulty 1-5 (spec §2.4)"
            raw["difficulty"] = int(value)
        if cells.get("domain"):
            domain = cells["domain"].casefold()
            if domain not in DOMAINS:
                where = label("domain", "--domain")
                return raw, (
                    f"column {where!r}: {cells['domain']!r} is not a domain code "
                    f"({', '.join(sorted(DOMAINS))})"
                )
            raw["domain"] = domain
        for name in ("provenance", "morphological_analysis", "notes"):
            if cells.get(name):
                raw[name] = cells[name]
        for name in ("register", "context"):  # the §2.6 conventions are lower case
            if cells.get(name):
                raw[name] = cells[name].casefold()
        if cells.get("variant_class"):
            raw["variant_class"] = cells["variant_class"]
        variants = _split_variants(cells.get("variants", ""), self.separator, raw["reference"])
        if variants:
            raw["variants"] = variants
        return raw, None


def _id_value(text: str) -> int | str:
    """An id cell: a whole number as an integer (the spec's type), anything else as text."""
    return int(text) if text.isascii() and text.isdigit() else text


def _split_variants(cell: str, separator: str, reference: str) -> list[str]:
    """Variants from one or more columns (joined by U+001F) and the separator inside a cell,
    without empties, repeats, or the reference itself."""
    out: list[str] = []
    for chunk in cell.split("\x1f"):
        for part in chunk.split(separator) if separator else [chunk]:
            text = part.strip()
            if text and text != reference and text not in out:
                out.append(text)
    return out
