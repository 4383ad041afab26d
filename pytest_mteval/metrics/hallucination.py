"""Hallucination: output that is not a translation of its source.

Per entry; each check is conservative, because a strong model's outputs must pass (the
reference harness flagged 94 % of a strong model's Shona outputs, which makes a flag useless):

- ``empty_output``: no letters or digits at all (for a source that has some).
- ``length_ratio``: more than 3 times or less than a third of the reference's letters, and
  at least 15 letters apart (short references make ratios jumpy).
- ``unrelated``: three weak signs together, where each alone misfires on good translations:
  almost no shared wording with the reference (character-trigram overlap below 0.1), a length
  off by more than a factor 2 from the reference's, and off by more than a factor 1.5 from
  what the source's length predicts (the corpus's median reference/source length ratio), each
  by at least 10 letters.
- ``repetition_loop``: a stretch of 1-50 characters repeated back to back at least 3 times,
  covering 20 characters or more, that the reference does not repeat.
- ``new_number``: a number above 20 in neither the source nor the reference. Smaller numbers
  are often spelled out on one side ("two hours" / "2時間"), so they prove nothing. Known
  false alarm: a larger number spelled out in both source and reference but written in
  digits in the output ("thirty" -> "30"); none occurs in the 947 real outputs measured.
- ``new_name``: a name the source and the reference do not account for (see ``invented_names``).
- ``mangled_copy``: only words of the source that the reference does not use, and not the
  whole source: cut short, its first word, repeated (``source_copies``). A whole copy is
  untranslated (code-switching), not hallucinated.

Across entries, in ``aggregate`` (see ``outputs_of_other_entries``): one output for several
different sources, and an output that is another entry's reference. ``hallucination_rate`` is
the share of translated entries flagged by any check; errored entries are not counted.

Measured precision (``benchmarks/validity.py``, docs/VALIDITY.md) against expert MQM
annotations of a Major Accuracy/Addition, Omission or Mistranslation error, on the 6,877
WMT21 TED zh->en outputs of 13 systems scored against ``refB``: 0.40 (2 of the 5 outputs
flagged; the other 3 are one system's outputs that translate a neighbouring segment, which
the experts did not mark), recall 0.002 of the 1,194 marked outputs: the checks look for
outputs that are not translations at all, not for mistranslated words. On the WMT23 en->de
side-by-side set (936 outputs of 9 systems, refA): precision 0.62 (5 of 8), recall 0.012 of
the 405 outputs with such a Major error. Before issue 15 the
names and loops checks misfired there (precision 0.32, 212 flags, and a system-level
correlation of -0.48 with the experts: it flagged the better systems more).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import regex

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import FlaggedShare, MetricDefinition
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.invented_names import lower_case_vocabulary, name_checks_apply, new_names
from pytest_mteval.metrics.numerals import cjk_numbers
from pytest_mteval.metrics.outputs_of_other_entries import fits_other_reference, same_output
from pytest_mteval.metrics.overlap import similarity
from pytest_mteval.metrics.source_copies import mangled_copy
from pytest_mteval.metrics.text import letters, nfc, numbers, words

MAX_RATIO = 3.0
MIN_GAP = 15
UNRELATED_OVERLAP = 0.1
UNRELATED_RATIO = 2.0
UNRELATED_SOURCE_RATIO = 1.5
UNRELATED_GAP = 10
MAX_SPELLED_NUMBER = 20
_LOOP = re.compile(r"(.{1,50}?)\1{2,}", re.DOTALL)  # the stdlib is twice as fast here
#: The same, starting where a word starts (or anywhere in scripts written without spaces):
#: "120 degrees, 0 degrees, 0 degrees" is not a loop of "0 degrees, " that begins inside
#: "120" (13 of the 14 loops found in the WMT21 TED zh->en outputs were this enumeration).
_WORD_LOOP = regex.compile(
    r"(?:(?<!\w)|(?=[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]))"
    r"(.{1,50}?)\1{2,}",
    regex.DOTALL,
)
_LETTER = regex.compile(r"\p{L}")


def loops(text: str) -> set[str]:
    """Stretches repeated back to back (case-folded), each run covering 20 characters or more."""
    text = " ".join(nfc(text).casefold().split())[:5000]
    sixgrams = Counter(text[i : i + 6] for i in range(len(text) - 5))
    if not sixgrams or max(sixgrams.values()) < 3:
        return set()  # every such run repeats some 6 characters 3 times: most texts stop here
    found = set()
    if _LOOP.search(text) is None:
        return set()
    for match in _WORD_LOOP.finditer(text):
        unit = match.group(1)
        if len(match.group()) >= 20 and _LETTER.search(unit):
            found.add(unit.strip() or unit)
    return found


def _outside(value: float, factor: float) -> bool:
    return not 1 / factor <= value <= factor


HALLUCINATION: Final = MetricDefinition(
    "hallucination_rate",
    "hallucination",
    FlaggedShare("hallucination_detected"),
    higher_is_better=False,
    shown_at=4,
    card_keys=(
        "hallucination_entries",
        "hallucination_reasons",
        "same_output_for_different_sources",
        "another_entrys_reference",
    ),
)


@dataclass(frozen=True)
class CorpusFacts:
    """What the per-entry checks take from the whole corpus."""

    #: The corpus's median of reference letters / source letters.
    length_factor: float
    lower_case_vocabulary: frozenset[str]
    check_names: bool

    @classmethod
    def of(cls, corpus: Corpus) -> CorpusFacts:
        return cls(
            length_factor=length_factor(corpus),
            lower_case_vocabulary=lower_case_vocabulary(corpus),
            check_names=name_checks_apply(
                (e.reference for e in corpus.entries), (e.source for e in corpus.entries)
            ),
        )


class Hallucination:
    name = "hallucination"
    definitions = (HALLUCINATION,)

    def __init__(self, facts: CorpusFacts | Corpus) -> None:
        """``facts``, or the corpus to learn them from before the first entry is scored
        (``prepare``): a process that only aggregates, as an xdist controller, never reads
        the whole corpus for them (0.5 s at 10,000 entries)."""
        self._facts = facts

    @property
    def facts(self) -> CorpusFacts:
        if not isinstance(self._facts, CorpusFacts):
            self._facts = CorpusFacts.of(self._facts)
        return self._facts

    def prepare(self) -> None:
        """Learn the corpus's facts now, before an entry's scoring time starts."""
        _ = self.facts

    def reasons(self, entry: Entry, predicted: str) -> list[str]:
        """Every per-entry reason to believe the output is not a translation of the source."""
        size, reference_size = letters(predicted), letters(entry.reference)
        if size == 0:
            return ["empty_output"] if letters(entry.source) else []
        found = []
        ratio = size / max(reference_size, 1)
        facts = self.facts
        expected = letters(entry.source) * facts.length_factor
        if abs(size - reference_size) >= MIN_GAP and _outside(ratio, MAX_RATIO):
            found.append(f"length_ratio: {ratio:.2f} of the reference")
        elif (
            min(abs(size - reference_size), abs(size - expected)) >= UNRELATED_GAP
            and _outside(ratio, UNRELATED_RATIO)
            and _outside(size / max(expected, 1.0), UNRELATED_SOURCE_RATIO)
            and similarity(predicted, entry.reference) < UNRELATED_OVERLAP
        ):
            found.append(f"unrelated: {ratio:.2f} of the reference's length, little shared")
        repeated = loops(predicted)
        if repeated:
            repeated -= loops(entry.reference)
        if repeated:
            found.append(f"repetition_loop: {sorted(repeated)[0]!r}")
        known = numbers(entry.source) | cjk_numbers(entry.source) | numbers(entry.reference)
        new_numbers = numbers(predicted) - known
        large = sorted(n for n in new_numbers if int(n) > MAX_SPELLED_NUMBER)
        if large:
            found.append(f"new_number: {', '.join(large)}")
        names = (
            new_names(entry, predicted, facts.lower_case_vocabulary) if facts.check_names else []
        )
        if names:
            found.append(f"new_name: {', '.join(names)}")
        if mangled_copy(words(predicted), entry):
            found.append("mangled_copy: only (part of) the source, not all of it")
        return found

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        reasons = self.reasons(entry, predicted)
        return {"hallucination_detected": bool(reasons), "hallucination_reasons": reasons}

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        scored = [r for r in records if r.get("hallucination_detected") is not None]
        repeated = same_output(scored)
        elsewhere = fits_other_reference(scored)
        flagged = {str(r.get("entry_id")) for r in scored if r["hallucination_detected"]}
        flagged |= {i for ids in repeated.values() for i in ids} | set(elsewhere)
        reasons = Counter(
            reason.split(":")[0] for r in scored for reason in r["hallucination_reasons"]
        )
        reasons.update(
            same_output_for_different_sources=sum(map(len, repeated.values())),
            another_entrys_reference=len(elsewhere),
        )
        return {
            "hallucination_rate": HALLUCINATION.score(records, frozenset(flagged)),
            "hallucination_entries": sorted(flagged),
            "hallucination_reasons": {k: v for k, v in sorted(reasons.items()) if v},
            "same_output_for_different_sources": repeated,
            "another_entrys_reference": elsewhere,
        }


def length_factor(corpus: Corpus) -> float:
    """The median of reference letters / source letters: how long a translation tends to be."""
    ratios = [letters(e.reference) / letters(e.source) for e in corpus.entries if letters(e.source)]
    return statistics.median(ratios) if ratios else 1.0


def build(context: MetricContext) -> Hallucination:
    """Always available: it needs only the corpus."""
    return Hallucination(context.corpus)


FAMILY: Final = BuiltinFamily(Hallucination, build, build_at=6, report_at=6)
