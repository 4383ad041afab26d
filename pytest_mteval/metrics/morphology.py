"""Morphological accuracy: the share of gold morphemes that the prediction reproduces, as
seen through the target language's analyzer.

An entry's gold ``morphological_analysis`` is read in one of two notations:

- *analyzer notation*, the analyzer's own output, one analysis per word
  (``wâpamêw+V+TA+Ind+1Sg+3SgO atim+N+A+Sg``). A gold word's units are its lemma and each of
  its tags. A predicted word reproduces the units shared (as a multiset, case-sensitive) with
  the best of its analyses: a form with the right stem and the wrong person keeps the stem
  and the other tags but loses the person.
- *segmented notation*, as in the spec's example (``ni-wâpam-âw atim | 1sg-see.TA-3sg.DIR
  dog.AN``): the segmented words left of ``|`` (the glosses are for people; an analyzer does
  not produce English glosses). A gold word's units are its morphemes (split on ``-`` and
  ``=``). A predicted word that the analyzer accepts reproduces the morphemes found in it in
  order (case-folded); a word the analyzer rejects reproduces nothing.

Gold words are matched one to one with predicted words, in any order (word order is free in
many languages): repeatedly the pair that reproduces the most units is taken (ties: earlier
gold word, then earlier predicted word), until no remaining pair reproduces anything.
Per entry: reproduced units / gold units. Per run: the same pooled over entries with gold;
an entry that failed to translate keeps its gold units with none reproduced. Null when the
corpus has no gold analyses (then the metric is not built) or no analyzer is configured.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.fst import Analyzer, analyzer_for
from pytest_mteval.metrics.text import nfc, words

#: A gold word: its units, and whether they are analysis units (else surface morphemes).
GoldWord = tuple[tuple[str, ...], bool]


def parse_gold(analysis: str) -> list[GoldWord]:
    """The gold words of a ``morphological_analysis`` string, in either notation."""
    if "+" in analysis and "|" not in analysis:
        return [(tuple(p for p in word.split("+") if p), True) for word in analysis.split()]
    segmented = analysis.split("|", 1)[0]
    gold = []
    for word in segmented.split():
        morphemes = [nfc(m).casefold() for m in word.replace("=", "-").split("-")]
        units = tuple(m.strip(".,;:!?\"'()[]") for m in morphemes)
        if any(units):
            gold.append((tuple(u for u in units if u), False))
    return gold


def in_order(morphemes: Sequence[str], word: str) -> int:
    """How many morphemes occur in ``word`` one after another (case-folded)."""
    word, position, found = nfc(word).casefold(), 0, 0
    for morpheme in morphemes:
        at = word.find(morpheme, position)
        if at >= 0:
            found, position = found + 1, at + len(morpheme)
    return found


MORPHOLOGICAL_ACCURACY: Final = MetricDefinition(
    "morphological_accuracy",
    "morphological accuracy",
    RatioOfCounts("morphology_reproduced", "morphology_units"),
    shown="never",
)


class MorphologicalAccuracy:
    name = "morphology"
    definitions = (MORPHOLOGICAL_ACCURACY,)

    def __init__(self, analyzer: Analyzer, gold: dict[str, list[GoldWord]]) -> None:
        self.analyzer = analyzer
        #: Entry key -> its parsed gold analysis (entries without one are absent).
        self.gold = gold

    def reproduced(self, gold_word: GoldWord, predicted_word: str) -> int:
        units, is_analysis = gold_word
        if not is_analysis:
            return in_order(units, predicted_word) if self.analyzer.accepts(predicted_word) else 0
        wanted = Counter(units)
        return max(
            (
                (wanted & Counter(a.split("+"))).total()
                for a in self.analyzer.analyses(predicted_word)
            ),
            default=0,
        )

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        gold = self.gold.get(entry.key)
        if not gold:
            return {"morphological_accuracy": None}
        predicted_words = words(predicted)
        total = sum(len(units) for units, _ in gold)
        pairs = sorted(
            (-self.reproduced(gold_word, word), g, p)
            for g, gold_word in enumerate(gold)
            for p, word in enumerate(predicted_words)
        )
        reproduced, used_gold, used_predicted = 0, set(), set()
        for negative, g, p in pairs:
            if negative < 0 and g not in used_gold and p not in used_predicted:
                reproduced -= negative
                used_gold.add(g)
                used_predicted.add(p)
        return {
            "morphological_accuracy": reproduced / total,
            "morphology_units": total,
            "morphology_reproduced": reproduced,
        }

    def score_failed(self, entry: Entry) -> JSONDict:
        """An entry that failed to translate keeps its gold units, none reproduced."""
        gold = self.gold.get(entry.key)
        if not gold:
            return {}
        return {"morphology_units": sum(len(u) for u, _ in gold), "morphology_reproduced": 0}

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        """Pooled over the run (failed entries carry their units: ``score_failed``)."""
        return {"morphological_accuracy": MORPHOLOGICAL_ACCURACY.score(records)}


def gold_analyses(corpus: Corpus) -> dict[str, list[GoldWord]]:
    found = {}
    for entry in corpus.entries:
        if entry.morphological_analysis:
            gold = parse_gold(entry.morphological_analysis)
            if gold:
                found[entry.key] = gold
    return found


def build(context: MetricContext) -> MorphologicalAccuracy | None:
    """None without gold analyses in the corpus or without an analyzer."""
    gold = gold_analyses(context.corpus)
    if not gold:
        return None
    analyzer = analyzer_for(context)
    return None if analyzer is None else MorphologicalAccuracy(analyzer, gold)


FAMILY: Final = BuiltinFamily(MorphologicalAccuracy, build, build_at=2, report_at=3)
