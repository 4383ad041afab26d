"""The checks behind ``mteval corpus lint``: the minimums of spec §11.1, the schema of §2, and
content that would make scores mean less (contamination §9.2.1, copies, odd lengths).

Each check is a function of the validated entries returning findings; ``lint.py`` runs them
and prints. Errors make a corpus unfit for an official benchmark; warnings deserve a look.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pytest_mteval.corpus import Dataset, Entry
from pytest_mteval.corpus_model import envelope_problems
from pytest_mteval.metrics.match import output_key

Severity = Literal["error", "warning"]
#: Conventions of spec §2.6 (free strings are allowed; others get a warning).
REGISTERS = frozenset({"conversational", "formal", "technical", "ceremonial", "educational"})
CONTEXTS = frozenset(
    {"greeting", "declaration", "question", "instruction", "narrative", "label", "error"}
)
#: Segments whose entries method authors never see (spec §2.3, §8).
SECRET = frozenset({"gold_standard", "held_out"})
#: A reference/source length ratio this many times the corpus median, or its inverse, is odd.
LENGTH_RATIO_FACTOR = 3.0
#: Texts shorter than this (in characters, on both sides) are too short for the ratio to mean
#: anything: "I" -> "niya" is a ratio of 4.
LENGTH_RATIO_MIN_CHARS = 15


@dataclass(frozen=True)
class Minimum:
    """One row of the §11.1 table."""

    number: int
    name: str
    have: int | str
    need: int | str
    ok: bool


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    entry_ids: list[str] = field(default_factory=list)


def minimums(dataset: Dataset | None, entries: Sequence[Entry], total: int) -> list[Minimum]:
    """Spec §11.1, in its order. ``total`` counts invalid entries too (they lack provenance
    as far as the corpus can prove)."""
    by_segment: defaultdict[str, int] = defaultdict(int)
    for entry in entries:
        by_segment[entry.segment] += 1
    with_provenance = sum(1 for e in entries if e.provenance and e.provenance.strip())
    tiers = {e.difficulty for e in entries if e.difficulty is not None}
    registers = {
        e.register_.strip().casefold() for e in entries if e.register_ and e.register_.strip()
    }
    consent = bool(dataset and dataset.consent and dataset.consent.strip())
    return [
        Minimum(
            1,
            "gold_standard entries",
            by_segment["gold_standard"],
            50,
            by_segment["gold_standard"] >= 50,
        ),
        Minimum(
            2, "development entries", by_segment["development"], 30, by_segment["development"] >= 30
        ),
        Minimum(
            3, "diagnostic entries", by_segment["diagnostic"], 10, by_segment["diagnostic"] >= 10
        ),
        Minimum(
            4,
            "entries with provenance",
            with_provenance,
            total,
            total > 0 and with_provenance == total,
        ),
        Minimum(5, "difficulty tiers (of 5)", len(tiers), 3, len(tiers) >= 3),
        Minimum(6, "registers", len(registers), 2, len(registers) >= 2),
        Minimum(
            7, "community consent (dataset.consent)", "yes" if consent else "no", "yes", consent
        ),
    ]


def envelope_findings(dataset: Dataset, entries: Sequence[Entry]) -> list[Finding]:
    """§2.1 beyond the types: the date, language tags and licence the loader refuses too
    (``corpus_model.envelope_problems``, one message for both), versions, provenance list."""
    out = [
        Finding("error", "schema", problem) for problem in envelope_problems(dataset.model_dump())
    ]
    if not re.fullmatch(r"\d+(\.\d+){0,2}([-+][0-9A-Za-z.-]+)?", dataset.version):
        out.append(
            Finding(
                "warning",
                "schema",
                f"dataset.version {dataset.version!r} is not a semantic version (1.0.0)",
            )
        )
    used = {e.provenance for e in entries if e.provenance}
    missing = sorted(used - set(dataset.provenance))
    if missing:
        out.append(
            Finding(
                "error",
                "schema",
                f"dataset.provenance {dataset.provenance} lacks tags its entries use: "
                + ", ".join(missing),
            )
        )
    return out


def value_findings(entries: Sequence[Entry]) -> list[Finding]:
    """Registers and contexts outside the §2.6 conventions (allowed, but often a typo)."""
    out: list[Finding] = []
    for name, allowed in (("register", REGISTERS), ("context", CONTEXTS)):
        odd: defaultdict[str, list[str]] = defaultdict(list)
        for entry in entries:
            value = entry.register_ if name == "register" else entry.context
            if value is not None and value not in allowed:
                odd[value].append(entry.key)
        for value, ids in sorted(odd.items()):
            out.append(
                Finding(
                    "warning",
                    f"unusual_{name}",
                    f"{name} {value!r} on {len(ids)} entries is not one of the spec's "
                    f"({', '.join(sorted(allowed))})",
                    ids,
                )
            )
    return out


def diagnostic_findings(entries: Sequence[Entry]) -> list[Finding]:
    """Diagnostic entries target a linguistic phenomenon (§11.1.3): one that names none (no
    ``notes``, no ``variant_class``) cannot tell a reader what it tests."""
    unnamed = [
        e.key for e in entries if e.segment == "diagnostic" and not (e.notes or e.variant_class)
    ]
    if not unnamed:
        return []
    return [
        Finding(
            "warning",
            "diagnostic_without_phenomenon",
            f"{len(unnamed)} diagnostic entries name no phenomenon they test (notes or "
            "variant_class, spec §11.1.3)",
            unnamed,
        )
    ]


def near_key(text: str) -> str:
    """Sources equal under this key are near-duplicates: case, spacing, punctuation and
    compatibility forms aside (``Edmonton`` / ``"edmonton"`` / ``Edmonton!``)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(c if unicodedata.category(c)[0] in "LNM" else " " for c in folded)
    return " ".join(kept.split())


def duplicate_findings(entries: Sequence[Entry]) -> list[Finding]:
    """Repeated sources within a segment, and across segments; a secret-segment source also in
    a public segment is contamination (spec §9.2.1: methods may have seen it)."""
    groups: defaultdict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        key = near_key(entry.source)
        if key:
            groups[key].append(entry)
    out: list[Finding] = []
    for group in groups.values():
        if len(group) < 2:
            continue
        exact = len({e.source for e in group}) == 1
        segments = {e.segment for e in group}
        ids = [e.key for e in group]
        shown = ", ".join(f"{e.key} ({e.segment}) {e.source!r}" for e in group[:4])
        if segments & SECRET and segments - SECRET:
            out.append(
                Finding(
                    "error",
                    "contamination",
                    f"a {'/'.join(sorted(segments & SECRET))} source also appears "
                    f"{'' if exact else 'nearly '}unchanged in a public segment, where methods "
                    f"may have seen it (spec §9.2.1): {shown}",
                    ids,
                )
            )
        elif len(segments) > 1:
            out.append(
                Finding(
                    "warning",
                    "duplicate_across_segments",
                    f"same source in {len(segments)} segments: {shown}",
                    ids,
                )
            )
        else:
            code = "duplicate_source" if exact else "near_duplicate_source"
            out.append(
                Finding(
                    "warning",
                    code,
                    f"{len(group)} entries with {'the same' if exact else 'nearly the same'} "
                    f"source: {shown}",
                    ids,
                )
            )
    return out


def content_findings(entries: Sequence[Entry]) -> list[Finding]:
    """References equal to their source, variants repeating the reference, odd lengths."""
    copied = [e.key for e in entries if output_key(e.reference) == output_key(e.source)]
    redundant = [
        e.key for e in entries if any(output_key(v) == output_key(e.reference) for v in e.variants)
    ]
    out: list[Finding] = []
    if copied:
        out.append(
            Finding(
                "warning",
                "reference_equals_source",
                f"{len(copied)} entries have their source as reference: copying the input scores "
                "on them (names and numbers can be legitimate)",
                copied,
            )
        )
    if redundant:
        out.append(
            Finding(
                "warning",
                "variant_is_reference",
                f"{len(redundant)} entries list their reference among their variants",
                redundant,
            )
        )
    out.extend(_length_ratio(entries))
    return out


def _length_ratio(entries: Sequence[Entry]) -> list[Finding]:
    """Reference/source character ratios far from the corpus's median: a misaligned row, a
    truncated cell or a note pasted into the reference."""
    sized = [
        (e, len(e.reference) / len(e.source))
        for e in entries
        if max(len(e.source), len(e.reference)) >= LENGTH_RATIO_MIN_CHARS
        and e.source
        and e.reference
    ]
    if len(sized) < 5:
        return []
    median = statistics.median(math.log(r) for _, r in sized)
    limit = math.log(LENGTH_RATIO_FACTOR)
    odd = [(e, r) for e, r in sized if abs(math.log(r) - median) > limit]
    if not odd:
        return []
    examples = ", ".join(f"{e.key} ({r:.2f})" for e, r in odd[:5])
    return [
        Finding(
            "warning",
            "length_ratio",
            f"{len(odd)} entries have a reference/source length ratio over {LENGTH_RATIO_FACTOR:g} "
            f"times from the corpus median {math.exp(median):.2f}: {examples}",
            [e.key for e, _ in odd],
        )
    ]
