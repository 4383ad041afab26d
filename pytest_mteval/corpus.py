"""Corpus files: a loader that reads both the spec's envelope and the reference harness's shape
into the models of ``corpus_model.py``, failing with one message that names the file, the entry
and the field."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from pytest_mteval.corpus_model import (
    DOMAINS,
    Dataset,
    Entry,
    EntryId,
    Judgment,
    ReferenceQuality,
    Segment,
    describe_reference_quality,
    envelope_problems,
)
from pytest_mteval.errors import MtevalError
from pytest_mteval.flat_corpus import (
    FieldNames,
    from_flat_list,
    renamed_entries,
    with_placeholders,
)
from pytest_mteval.json_files import parse_json, read_bytes

__all__ = [
    "DOMAINS",
    "Corpus",
    "CorpusError",
    "Dataset",
    "Entry",
    "EntryId",
    "FieldNames",
    "Judgment",
    "ReferenceQuality",
    "Segment",
    "describe_reference_quality",
    "load_corpus",
    "parse_corpus",
    "read_document",
    "validation_message",
]


#: Which shape the file had: the spec's envelope, the harness's curated object or its flat list.
Shape = Literal["spec", "harness", "flat"]


class CorpusError(MtevalError):
    """A corpus that cannot be evaluated; the message is meant to be shown as is."""


@dataclass(frozen=True)
class Corpus:
    """A validated corpus with the facts a run card needs about the file it came from."""

    path: Path
    dataset: Dataset
    entries: tuple[Entry, ...]
    sha256: str
    shape: Shape = "spec"
    mapped_fields: tuple[str, ...] = field(default=())
    #: Held-out entries the run left out, not activated (``run/segments.py``).
    held_out_left_out: int = 0
    #: Entries per segment before the run's filters (``filtered``): what "complete over a
    #: segment" is measured against. Empty until a filter is applied.
    segment_sizes: tuple[tuple[str, int], ...] = ()

    def filtered(
        self,
        segments: Iterable[str] = (),
        domains: Iterable[str] = (),
        difficulties: Iterable[int] = (),
    ) -> Corpus:
        """The same corpus restricted to entries matching every non-empty filter; the sizes of
        its segments before filtering are kept (``segment_sizes``)."""
        seg, dom, dif = set(segments), set(domains), set(difficulties)
        kept = tuple(
            e
            for e in self.entries
            if (not seg or e.segment in seg)
            and (not dom or e.domain in dom)
            and (not dif or e.difficulty in dif)
        )
        sizes = self.segment_sizes or segment_counts(self.entries)
        return dataclasses.replace(self, entries=kept, segment_sizes=sizes)

    def entries_in_segment(self, segment: str) -> int:
        """How many entries ``segment`` had before the run's filters."""
        sizes = dict(self.segment_sizes or segment_counts(self.entries))
        return sizes.get(segment, 0)

    def resource_path(self, relative: str | None) -> Path | None:
        """A path named inside the corpus file, resolved against the corpus's folder."""
        return None if relative is None else (self.path.parent / relative).resolve()


def segment_counts(entries: Iterable[Entry]) -> tuple[tuple[str, int], ...]:
    """Entries per segment, segments in sorted order."""
    counts = Counter(entry.segment for entry in entries)
    return tuple(sorted(counts.items()))


def load_corpus(path: str | Path, fields: FieldNames | None = None) -> Corpus:
    """Read, map and validate a corpus file; raise CorpusError with one clear message."""
    path = Path(path)
    return parse_corpus(path, read_bytes(path, "corpus file", CorpusError), fields)


def parse_corpus(path: Path, raw_bytes: bytes, fields: FieldNames | None = None) -> Corpus:
    """Map and validate a corpus's bytes (read from ``path``, or decrypted in memory);
    ``fields`` names the entry fields read as source and reference."""
    raw, shape, mapped = _document(path, raw_bytes, fields)
    given = raw.get("dataset")
    if shape == "flat":  # its placeholders for what it leaves empty are ours, not the file's
        given = {key: value for key, value in raw["dataset"].items() if value}
        filled, noted = with_placeholders(raw["dataset"])
        raw, mapped = {**raw, "dataset": filled}, mapped + noted
    dataset = _validate_dataset(path, raw.get("dataset"))
    problems = envelope_problems(given) if isinstance(given, dict) else []
    if problems:  # as ``mteval corpus lint`` words them
        raise CorpusError(f"{path}: " + "; ".join(problems))
    entries = _validate_entries(path, raw.pop("entries"))
    digest = hashlib.sha256(raw_bytes).hexdigest()
    return Corpus(path, dataset, entries, digest, shape, mapped)


def read_document(
    path: Path, fields: FieldNames | None = None
) -> tuple[dict[str, Any], bytes, Shape, tuple[str, ...]]:
    """The corpus file as the spec's envelope (a harness-shaped file mapped onto it; a flat
    list's unknown dataset fields empty), not yet validated, with its bytes, its shape and the
    fields mapped; CorpusError when unreadable."""
    raw_bytes = read_bytes(path, "corpus file", CorpusError)
    raw, shape, mapped = _document(path, raw_bytes, fields)
    return raw, raw_bytes, shape, mapped


def _document(
    path: Path, raw_bytes: bytes, fields: FieldNames | None = None
) -> tuple[dict[str, Any], Shape, tuple[str, ...]]:
    """The bytes as the spec's envelope, a harness-shaped corpus mapped onto it."""
    raw = parse_json(raw_bytes, str(path), CorpusError)
    shape: Shape = "spec"
    mapped: tuple[str, ...] = ()
    if isinstance(raw, list) and any(isinstance(entry, dict) for entry in raw):
        renamed, mapped = renamed_entries(raw, fields or FieldNames())
        raw, flat = from_flat_list(path, renamed)
        return raw, "flat", mapped + flat
    if not isinstance(raw, dict) or not isinstance(raw.get("entries"), list):
        raise CorpusError(
            f"{path}: a corpus is a JSON object with an 'entries' list (or the reference "
            "harness's flat list of entries)"
        )
    if "dataset" not in raw and "corpus_id" in raw:
        raw, mapped = _from_harness_shape(raw)
        shape = "harness"
    if fields is not None and fields.renames:
        entries, renames = renamed_entries(raw["entries"], fields)
        raw, mapped = {**raw, "entries": entries}, mapped + renames
    return raw, shape, mapped


def validation_message(exc: ValidationError, missing: bool = True) -> str:
    """One readable line for the problems pydantic found (public for the corpus tools);
    ``missing=False``: only the wrong fields, not the missing ones."""
    if missing:
        return _first_error(exc)
    return "; ".join(_problem(err) for err in exc.errors() if err["type"] != "missing")


def _validate_dataset(path: Path, raw: Any) -> Dataset:
    if not isinstance(raw, dict):
        raise CorpusError(f"{path}: missing the 'dataset' envelope object (spec §2.1)")
    try:
        return Dataset.model_validate(raw)
    except ValidationError as exc:
        raise CorpusError(f"{path}: dataset: {_first_error(exc)}") from None


def _validate_entries(path: Path, raw_entries: list[Any]) -> tuple[Entry, ...]:
    """The entries, validated; ``raw_entries`` is consumed: each parsed entry is let go once
    its Entry is made, so a large corpus never holds both whole (the parsed dicts and the
    models: 90 MB less at the peak of loading 100 k entries)."""
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    given: dict[frozenset[str], set[str]] = {}
    for index, raw in enumerate(raw_entries):
        label = _entry_label(index, raw)
        if not isinstance(raw, dict):
            raise CorpusError(f"{path}: {label}: an entry is a JSON object")
        try:
            entry = Entry.model_validate(raw)
        except ValidationError as exc:
            raise CorpusError(f"{path}: {label}: {_first_error(exc)}") from None
        raw_entries[index] = None
        if entry.key in seen:
            first = seen[entry.key]
            raise CorpusError(
                f"{path}: {label}: field 'id': duplicate id, first used by entry {first}"
            )
        seen[entry.key] = index
        entries.append(share_fields_set(entry, given))
    if not entries:
        raise CorpusError(f"{path}: the corpus has no entries")
    return tuple(entries)


def share_fields_set(entry: Entry, given: dict[frozenset[str], set[str]]) -> Entry:
    """The entry, its set of given field names shared with every entry given the same fields.

    pydantic keeps that set per instance (0.7 KB for a FLORES entry: 70 MB of 100 k entries'
    memory). Sharing it is safe: an Entry is frozen, so nothing adds to it, and ``model_copy``
    copies it before an update.
    """
    fields = entry.model_fields_set
    shared = given.setdefault(frozenset(fields), fields)
    if shared is not fields:
        object.__setattr__(entry, "__pydantic_fields_set__", shared)
    return entry


def _entry_label(index: int, raw: Any) -> str:
    entry_id = raw.get("id") if isinstance(raw, dict) else None
    return f"entry {index}" + (f" (id {entry_id!r})" if entry_id is not None else "")


def _first_error(exc: ValidationError) -> str:
    """One readable line for every problem pydantic found (all at once: a user fixes them in
    one go, not one per attempt)."""
    return "; ".join(_problem(err) for err in exc.errors())


def _problem(err: Any) -> str:
    where = ".".join(str(part) for part in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        return f"field {where!r}: required field is missing"
    return f"field {where!r}: {message}" if where else message


def _from_harness_shape(raw: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Map the reference harness's corpus shape (tatoeba-curated) onto the spec's envelope."""
    pair = raw.get("language_pair") or {}
    source = str(pair.get("source", "")) if isinstance(pair, dict) else ""
    target = str(pair.get("target", "")) if isinstance(pair, dict) else ""
    entries: list[Any] = []
    provenances: list[str] = []
    licenses: set[str] = set()
    for entry in raw["entries"]:
        if isinstance(entry, dict) and isinstance(entry.get("provenance"), dict):
            prov = entry["provenance"]
            metadata = entry.get("metadata")
            inner = metadata.get("provenance") if isinstance(metadata, dict) else None
            inner = inner if isinstance(inner, dict) else {}
            licenses.add(str(inner.get("license") or prov.get("license") or "unknown"))
            entry = {**entry, "provenance": str(prov.get("source_name") or "corpus")}
            entry.setdefault("segment", raw.get("segment", "development"))
        if isinstance(entry, dict) and isinstance(entry.get("provenance"), str):
            provenances.append(entry["provenance"])
        entries.append(entry)
    dataset = {
        "id": raw.get("corpus_id"),
        "version": raw.get("version"),
        "language_pair": f"{source.upper()}→{target.upper()}",
        "source_language": source,
        "target_language": target,
        "created": raw.get("created"),
        "license": licenses.pop() if len(licenses) == 1 else "NOASSERTION",
        "provenance": sorted(set(provenances)),
    }
    mapped = (
        "corpus_id -> dataset.id",
        "language_pair{source,target} -> dataset.source_language/target_language",
        "entries[].metadata.provenance.license -> dataset.license",
        "entries[].provenance{source_name} -> entries[].provenance",
    )
    return {"dataset": dataset, "entries": entries}, mapped
