"""Terminology adherence: where a glossary's source term occurs in the source, its target term
must occur in the prediction.

Terms come from the corpus's glossary file (``dataset.glossary``: a JSON object mapping a
source term to a target term, or to a list of acceptable target terms; path relative to the
corpus file) and from each entry's own ``terms``, which take precedence for that entry.

Matching is case-insensitive on NFC text. A source term must occur as whole words, so that
"cat" does not require its translation in a sentence about a "category"; a target term must
start a word but may run on, so that an inflected form ("talossa" for the term "talo") counts.
Terms written in Han, kana or hangul, which are not separated by spaces, match anywhere.
The run's figure is required terms present over required terms; null when no source term
occurred anywhere (or when there is no glossary at all, in which case the metric is not built).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Final

import regex

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.resources import ResourceError
from pytest_mteval.metrics.text import WORD_CHAR, nfc
from pytest_mteval.metrics.writing_systems import system_of_char

#: Source term -> acceptable target terms.
Glossary = Mapping[str, tuple[str, ...]]


@lru_cache(maxsize=65536)
def _pattern(term: str, whole_word: bool) -> regex.Pattern[str]:
    term = nfc(term).casefold()
    left = "" if system_of_char(term[:1]) == "CJK" else rf"(?<!{WORD_CHAR})"
    right = rf"(?!{WORD_CHAR})" if whole_word and left else ""
    return regex.compile(left + regex.escape(term) + right)


def occurs(term: str, text: str, *, whole_word: bool) -> bool:
    """Whether ``term`` occurs in ``text`` (already NFC and case-folded)."""
    return bool(term.strip()) and _pattern(term, whole_word).search(text) is not None


TERMINOLOGY: Final = MetricDefinition(
    "terminology_adherence",
    "terminology adherence",
    RatioOfCounts("terminology_present", "terminology_required"),
    shown="never",
    card_keys=("terminology_required",),
)


class TerminologyAdherence:
    name = "terminology"
    definitions = (TERMINOLOGY,)

    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary

    def required_terms(self, entry: Entry) -> dict[str, tuple[str, ...]]:
        """The glossary entries whose source term occurs in this entry's source."""
        terms = {**self.glossary, **{s: (t,) for s, t in entry.terms.items()}}
        source = nfc(entry.source).casefold()
        return {s: t for s, t in terms.items() if occurs(s, source, whole_word=True)}

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        required = self.required_terms(entry)
        text = nfc(predicted).casefold()
        missing = [
            targets[0]
            for targets in required.values()
            if not any(occurs(t, text, whole_word=False) for t in targets)
        ]
        return {
            "terminology_required": len(required),
            "terminology_present": len(required) - len(missing),
            "terminology_missing": missing,
            "terminology_adherence": 1 - len(missing) / len(required) if required else None,
        }

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        required = sum(r.get("terminology_required") or 0 for r in records)
        return {
            "terminology_adherence": TERMINOLOGY.score(records),
            "terminology_required": required,
        }


def load_glossary(corpus: Corpus) -> Glossary:
    """The corpus's glossary file, or an empty glossary when it names none."""
    path = corpus.resource_path(corpus.dataset.glossary)
    if path is None:
        return {}
    try:
        raw = read_json(path, "the glossary")
    except MtevalError as exc:
        raise ResourceError(f"cannot read the glossary: {exc}") from None
    glossary: dict[str, tuple[str, ...]] = {}
    for source, target in raw.items() if isinstance(raw, dict) else [(None, None)]:
        targets = (target,) if isinstance(target, str) else target
        if not isinstance(source, str) or not isinstance(targets, list | tuple) or not targets:
            raise ResourceError(
                f"{path}: a glossary maps each source term to a target term or a list of them"
            )
        if not all(isinstance(t, str) for t in targets):
            raise ResourceError(f"{path}: glossary term {source!r}: target terms must be strings")
        glossary[source] = tuple(targets)
    return glossary


def build(context: MetricContext) -> TerminologyAdherence | None:
    """None without a glossary file and without any per-entry terms."""
    glossary = load_glossary(context.corpus)
    if not glossary and not any(entry.terms for entry in context.corpus.entries):
        return None
    return TerminologyAdherence(glossary)


FAMILY: Final = BuiltinFamily(TerminologyAdherence, build, build_at=7, report_at=7)
