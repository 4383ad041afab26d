"""The pydantic models of a corpus file (benchmark spec §2): the envelope's dataset block and
its entries, with the domain codes and segments the spec allows. The loader is ``corpus.py``."""

from __future__ import annotations

import datetime
import re
import sys
from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

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

    @field_validator("segment", "provenance", "register_", "domain", "variant_class")
    @classmethod
    def _shared(cls, value: str | None) -> str | None:
        """A label repeats across entries: one string object for all (100 k entries)."""
        return None if value is None else sys.intern(value)

    def model_post_init(self, __context: Any) -> None:
        if self.domain is not None and self.domain not in DOMAINS:
            raise ValueError(
                f"unknown domain {self.domain!r}; expected one of {', '.join(sorted(DOMAINS))}"
            )

    @property
    def key(self) -> str:
        """The id compared as text, so that 42 and "42" name the same entry. One string
        object per id (interned): a run keeps the key in its index, its ledger and the entry's
        record, and ``str(42)`` makes a new string at every call (15 MB of 100 k entries)."""
        return sys.intern(str(self.id))


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
    not an object: a card from elsewhere may carry anything); a card read as its model holds
    the model itself."""
    if isinstance(raw, ReferenceQuality):
        raw = raw.model_dump()
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


#: An SPDX licence identifier or expression, in form (``MIT``, ``CC-BY-4.0 OR MIT``,
#: ``LicenseRef-...`` for a licence SPDX does not list).
SPDX_FORM: Final = re.compile(r"^\(?[A-Za-z0-9.+-]+\)?( (AND|OR|WITH) \(?[A-Za-z0-9.+-]+\)?)*$")


def envelope_problems(dataset: Mapping[str, Any]) -> list[str]:
    """What spec §2.1 asks of the envelope beyond its types: an ISO 8601 ``created``, BCP 47
    language tags, an SPDX licence. One line per field, the same for the loader and lint."""
    problems: list[str] = []
    created = dataset.get("created")
    if isinstance(created, str) and not _iso_date(created):
        problems.append(f"dataset.created {created!r} is not an ISO 8601 date")
    for field in ("source_language", "target_language"):
        tag = dataset.get(field)
        if isinstance(tag, str) and not _language_tag(tag):
            problems.append(
                f"dataset.{field} {tag!r} is not a BCP 47 language tag (e.g. 'en', 'crk')"
            )
    licence = dataset.get("license")
    if isinstance(licence, str) and not SPDX_FORM.match(licence):
        problems.append(f"dataset.license {licence!r} is not an SPDX identifier or expression")
    return problems


def _iso_date(text: str) -> bool:
    """A date, or a date and time, as ISO 8601 writes them (``2026-05-01``); a year or a
    month alone (``2026``, ``2026-05``) is ISO 8601's reduced precision."""
    reduced = re.fullmatch(r"\d{4}(?:-(\d{2}))?", text)
    if reduced:
        return reduced.group(1) is None or 1 <= int(reduced.group(1)) <= 12
    try:
        datetime.date.fromisoformat(text[:10])
    except ValueError:
        return False
    return len(text) <= 10 or text[10] in "T "


def _language_tag(tag: str) -> bool:
    """A registered BCP 47 tag (langcodes reads the IANA registry it ships): "English" is
    well formed (a 5-8 letter subtag) but no language's tag."""
    import langcodes  # not at import: the corpus models are loaded by sessions without one

    return bool(tag) and bool(langcodes.tag_is_valid(tag))


class SecretEntry(Entry):
    """An entry of a secret run as handed to the user's own tests: the same fields, so the
    tests can check the text, but a repr (what pytest prints for fixture values, locals and
    assertion operands) naming only the id and segment."""

    def __repr_args__(self) -> Any:
        yield "id", self.id
        yield "segment", self.segment
        yield "text", "withheld (secret run)"
