"""Corpus files: the pydantic models of benchmark spec §2, and a loader that reads both the
spec's envelope and the reference harness's shape, failing with one message that names the
file, the entry and the field."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from pytest_mteval.errors import MtevalError, parse_json, read_bytes

#: The 16 domain codes of spec §2.7.
DOMAINS: frozenset[str] = frozenset(
    [
        "conv",
        "ecommerce",
        "edu",
        "financial",
        "gov",
        "legal",
        "literary",
        "marketing",
        "medical",
        "news",
        "religious",
        "scientific",
        "subtitles",
        "support",
        "tech",
        "ui",
    ]
)
Segment = Literal["gold_standard", "held_out", "development", "diagnostic"]
EntryId = StrictInt | StrictStr


class CorpusError(MtevalError):
    """A corpus that cannot be evaluated; the message is meant to be shown as is."""


class Entry(BaseModel):
    """One translation challenge (spec §2.2). Only id, source and reference are required."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: EntryId
    source: StrictStr
    reference: StrictStr
    segment: Segment = "development"
    difficulty: int | None = Field(default=None, ge=1, le=5, strict=True)
    provenance: StrictStr | None = None
    register_: StrictStr | None = Field(default=None, alias="register")  # BaseModel has .register
    context: StrictStr | None = None
    domain: StrictStr | None = None
    morphological_analysis: StrictStr | None = None
    notes: StrictStr | None = None
    variant_class: StrictStr | None = None
    variants: list[StrictStr] = Field(default_factory=list)
    terms: dict[StrictStr, StrictStr] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("source", "reference")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty or only whitespace")
        return value

    def model_post_init(self, __context: Any) -> None:
        if self.domain is not None and self.domain not in DOMAINS:
            raise ValueError(
                f"unknown domain {self.domain!r}; expected one of {', '.join(sorted(DOMAINS))}"
            )

    @property
    def key(self) -> str:
        """The id compared as text, so that 42 and "42" name the same entry."""
        return str(self.id)


#: How the references were judged against machine outputs (``ReferenceQuality.judgment``).
Judgment = Literal[
    "better_than_outputs", "comparable_to_outputs", "worse_than_outputs", "not_judged"
]


class ReferenceQuality(BaseModel):
    """Which human translation the references are, and how it was judged against the machine
    outputs it scores (optional ``dataset.reference_quality``; not in spec §2.1, which keeps
    unknown envelope keys harmless). Issue 15: on WMT21 TED zh->en the experts rated one of the
    two human references below every MT system, and every reference-based metric anti-correlates
    with their judgment when it is used; a card must be able to say so."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    #: Which translation, e.g. "refB (second professional translation of WMT21 TED)".
    reference: StrictStr
    judgment: Judgment = "not_judged"
    #: Who judged, e.g. "MQM expert raters (Freitag et al. 2021)"; required with a judgment.
    judged_by: StrictStr | None = None
    #: Where the judgment is documented, or its figures (a URL, a language-resource note).
    evidence: StrictStr | None = None

    @field_validator("reference")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty or only whitespace")
        return value

    @model_validator(mode="after")
    def _judge_named(self) -> ReferenceQuality:
        if self.judgment != "not_judged" and not (self.judged_by or "").strip():
            raise ValueError(f"judgment {self.judgment!r} needs 'judged_by' (who judged)")
        return self

    def describe(self) -> str:
        """One line for people: the reference, and the judgment with who made it."""
        return describe_reference_quality(self.model_dump()) or self.reference


def describe_reference_quality(raw: Any) -> str | None:
    """The line for a ``reference_quality`` object as a card stores it (None when absent or
    not an object: a card from elsewhere may carry anything)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("reference"), str):
        return None
    text = str(raw["reference"])
    judgment = raw.get("judgment")
    verdicts = {
        "better_than_outputs": "judged better than machine outputs",
        "comparable_to_outputs": "judged comparable to machine outputs",
        "worse_than_outputs": (
            "judged WORSE than machine outputs: reference-based scores may rank them backwards"
        ),
    }
    if judgment in verdicts:
        text += f"; {verdicts[judgment]}"
        if raw.get("judged_by"):
            text += f" by {raw['judged_by']}"
    else:
        text += "; quality not judged"
    if raw.get("evidence"):
        text += f" ({raw['evidence']})"
    return text


class Dataset(BaseModel):
    """The envelope of spec §2.1, plus optional pointers to language resources."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: StrictStr
    version: StrictStr
    language_pair: StrictStr
    source_language: StrictStr
    target_language: StrictStr
    created: StrictStr
    license: StrictStr
    provenance: list[StrictStr]
    language_resources: StrictStr | None = None
    glossary: StrictStr | None = None
    attribution: StrictStr | None = None
    #: Where the language community's agreement is documented (spec §11.1, minimum 7).
    consent: StrictStr | None = None
    #: Which reference the corpus uses and how it was judged (issue 15).
    reference_quality: ReferenceQuality | None = None


@dataclass(frozen=True)
class Corpus:
    """A validated corpus with the facts a run card needs about the file it came from."""

    path: Path
    dataset: Dataset
    entries: tuple[Entry, ...]
    sha256: str
    shape: Literal["spec", "harness"] = "spec"
    mapped_fields: tuple[str, ...] = field(default=())

    def filtered(
        self,
        segments: Iterable[str] = (),
        domains: Iterable[str] = (),
        difficulties: Iterable[int] = (),
    ) -> Corpus:
        """The same corpus restricted to entries matching every non-empty filter."""
        seg, dom, dif = set(segments), set(domains), set(difficulties)
        kept = tuple(
            e
            for e in self.entries
            if (not seg or e.segment in seg)
            and (not dom or e.domain in dom)
            and (not dif or e.difficulty in dif)
        )
        return Corpus(self.path, self.dataset, kept, self.sha256, self.shape, self.mapped_fields)

    def resource_path(self, relative: str | None) -> Path | None:
        """A path named inside the corpus file, resolved against the corpus's folder."""
        return None if relative is None else (self.path.parent / relative).resolve()


def load_corpus(path: str | Path) -> Corpus:
    """Read, map and validate a corpus file; raise CorpusError with one clear message."""
    path = Path(path)
    return parse_corpus(path, read_bytes(path, "corpus file", CorpusError))


def parse_corpus(path: Path, raw_bytes: bytes) -> Corpus:
    """Map and validate a corpus's bytes (read from ``path``, or decrypted in memory)."""
    raw, shape, mapped = _document(path, raw_bytes)
    dataset = _validate_dataset(path, raw.get("dataset"))
    entries = _validate_entries(path, raw["entries"])
    digest = hashlib.sha256(raw_bytes).hexdigest()
    return Corpus(path, dataset, entries, digest, shape, mapped)


def read_document(
    path: Path,
) -> tuple[dict[str, Any], bytes, Literal["spec", "harness"], tuple[str, ...]]:
    """The corpus file as the spec's envelope (a harness-shaped file mapped onto it), not yet
    validated, with its bytes, its shape and the fields mapped; CorpusError when unreadable."""
    raw_bytes = read_bytes(path, "corpus file", CorpusError)
    raw, shape, mapped = _document(path, raw_bytes)
    return raw, raw_bytes, shape, mapped


def _document(
    path: Path, raw_bytes: bytes
) -> tuple[dict[str, Any], Literal["spec", "harness"], tuple[str, ...]]:
    """The bytes as the spec's envelope, a harness-shaped corpus mapped onto it."""
    raw = parse_json(raw_bytes, str(path), CorpusError)
    if not isinstance(raw, dict) or not isinstance(raw.get("entries"), list):
        raise CorpusError(f"{path}: a corpus is a JSON object with an 'entries' list")
    if "dataset" not in raw and "corpus_id" in raw:
        mapped_raw, mapped = _from_harness_shape(raw)
        return mapped_raw, "harness", mapped
    return raw, "spec", ()


def validation_message(exc: ValidationError) -> str:
    """One readable line for the first problem pydantic found (public for the corpus tools)."""
    return _first_error(exc)


def _validate_dataset(path: Path, raw: Any) -> Dataset:
    if not isinstance(raw, dict):
        raise CorpusError(f"{path}: missing the 'dataset' envelope object (spec §2.1)")
    try:
        return Dataset.model_validate(raw)
    except ValidationError as exc:
        raise CorpusError(f"{path}: dataset: {_first_error(exc)}") from None


def _validate_entries(path: Path, raw_entries: list[Any]) -> tuple[Entry, ...]:
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_entries):
        label = _entry_label(index, raw)
        if not isinstance(raw, dict):
            raise CorpusError(f"{path}: {label}: an entry is a JSON object")
        try:
            entry = Entry.model_validate(raw)
        except ValidationError as exc:
            raise CorpusError(f"{path}: {label}: {_first_error(exc)}") from None
        if entry.key in seen:
            first = seen[entry.key]
            raise CorpusError(
                f"{path}: {label}: field 'id': duplicate id, first used by entry {first}"
            )
        seen[entry.key] = index
        entries.append(entry)
    if not entries:
        raise CorpusError(f"{path}: the corpus has no entries")
    return tuple(entries)


def _entry_label(index: int, raw: Any) -> str:
    entry_id = raw.get("id") if isinstance(raw, dict) else None
    return f"entry {index}" + (f" (id {entry_id!r})" if entry_id is not None else "")


def _first_error(exc: ValidationError) -> str:
    """One readable line for the first problem pydantic found."""
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"])
    message = err["msg"].removeprefix("Value error, ")
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
