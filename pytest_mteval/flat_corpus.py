"""The reference harness's flat corpora (a JSON list of entries, ``target`` for the reference)
and renamed source/reference fields, mapped onto the spec's envelope before validation.

A flat list says nothing of its dataset: its id is the file's name, and the fields it cannot
know (languages, licence, version) are left empty, so that ``mteval corpus import`` asks for
them; a run reads them as placeholders ("und", "NOASSERTION") and the card lists every field
mapped. The harness's own segment names ("basic", "intermediate") are not the spec's: they are
kept in each entry's metadata as ``harness_segment`` and the entry is a development entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

#: The spec's segments (``corpus_model.Segment``); any other segment name is the harness's own.
_SEGMENTS: Final = frozenset({"gold_standard", "held_out", "development", "diagnostic"})
#: What a run reads for the envelope fields a flat list cannot know.
_PLACEHOLDERS: Final = {
    "version": "unversioned",
    "language_pair": "UND→UND",
    "source_language": "und",
    "target_language": "und",
    "created": "unknown",
    "license": "NOASSERTION",
}


@dataclass(frozen=True)
class FieldNames:
    """Which entry fields hold the source and the reference (``--mteval-source-field``,
    ``--mteval-reference-field``; the reference harness's ``source_field``/``target_field``)."""

    source: str = "source"
    reference: str = "reference"

    @property
    def renames(self) -> bool:
        return (self.source, self.reference) != ("source", "reference")


def renamed_entries(entries: list[Any], fields: FieldNames) -> tuple[list[Any], tuple[str, ...]]:
    """The entries with the named fields read as ``source`` and ``reference``."""
    if not fields.renames:
        return entries, ()
    pairs = [(fields.source, "source"), (fields.reference, "reference")]
    pairs = [(given, ours) for given, ours in pairs if given != ours]
    out = [_renamed(entry, pairs) if isinstance(entry, dict) else entry for entry in entries]
    return out, tuple(f"entries[].{given} -> entries[].{ours}" for given, ours in pairs)


def _renamed(entry: Mapping[str, Any], pairs: list[tuple[str, str]]) -> dict[str, Any]:
    moved = {ours: entry[given] for given, ours in pairs if given in entry}
    rest = {k: v for k, v in entry.items() if k not in moved and k not in dict(pairs)}
    return {**rest, **moved}


def from_flat_list(path: Path, entries: list[Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A flat list as the spec's envelope, its unknown dataset fields left empty."""
    mapped = [
        "[...] -> {dataset, entries} (a flat list: dataset.id from the file name)",
    ]
    out: list[Any] = []
    for entry in entries:
        if isinstance(entry, dict):
            entry = dict(entry)
            if "reference" not in entry and "target" in entry:
                entry["reference"] = entry.pop("target")
            segment = entry.get("segment")
            if isinstance(segment, str) and segment not in _SEGMENTS:
                entry.pop("segment")
                metadata = entry.get("metadata")
                metadata = dict(metadata) if isinstance(metadata, dict) else {}
                entry["metadata"] = {**metadata, "harness_segment": segment}
        out.append(entry)
    if any(isinstance(e, dict) and "target" in e for e in entries):
        mapped.append("entries[].target -> entries[].reference")
    if any(isinstance(e, dict) and "harness_segment" in (e.get("metadata") or {}) for e in out):
        mapped.append("entries[].segment (the harness's names) -> metadata.harness_segment")
    dataset = {"id": path.stem, **dict.fromkeys(_PLACEHOLDERS, ""), "provenance": []}
    return {"dataset": dataset, "entries": out}, tuple(mapped)


def with_placeholders(dataset: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The envelope a run reads: the fields a flat list left empty as placeholders."""
    empty = [name for name in _PLACEHOLDERS if not dataset.get(name)]
    filled = {**dataset, **{name: _PLACEHOLDERS[name] for name in empty}}
    if not filled.get("provenance"):
        filled["provenance"] = ["reference-harness flat corpus"]
    note = f"dataset.{{{','.join(empty)}}} unknown in a flat list: placeholders" if empty else ""
    return filled, (note,) if note else ()
