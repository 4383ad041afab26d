"""A name the target's data writes is not untranslated text, even opening a source sentence.

Sentences: FLORES-200 devtest line 693, eng_Latn and deu_Latn (CC BY-SA 4.0, see
/work/shared/data/flores200-devtest/SOURCE.md in the project's shared data)."""

from __future__ import annotations

from pathlib import Path

from wordfreq import zipf_frequency

from pytest_mteval.corpus import Corpus, Dataset, Entry
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.base import MetricContext

SOURCE = (
    "Ottawa is Canada's charming, bilingual capital and features an array of art galleries "
    "and museums that showcase Canada's past and present."
)
GERMAN = (
    "Ottawa ist Kanadas bezaubernde, zweisprachige Hauptstadt und zeichnet sich durch eine "
    "Reihe von Kunstgalerien und Museen aus, die Kanadas Vergangenheit und Gegenwart "
    "präsentieren."
)


def english_to_german(pairs: list[tuple[str, str]]) -> Corpus:
    dataset = Dataset.model_validate(
        {
            "id": "x",
            "version": "1",
            "language_pair": "EN→DE",
            "source_language": "en",
            "target_language": "de",
            "created": "2026",
            "license": "x",
            "provenance": [],
        }
    )
    entries = tuple(Entry(id=i, source=s, reference=r) for i, (s, r) in enumerate(pairs))
    return Corpus(Path("x.json"), dataset, entries, "0" * 64)


def test_a_name_opening_the_source_is_kept_but_an_unknown_word_is_untranslated() -> None:
    # scored as FLORES's second half is: neither the corpus's sources (where it would be a
    # name written capitalized everywhere) nor its references know "Ottawa"
    corpus = english_to_german([("The bigots shouted.", "Die Eiferer riefen.")])
    metric = code_switching.build(MetricContext(corpus=corpus))
    (bigots,) = corpus.entries
    name = Entry(id=9, source=SOURCE, reference="…")
    # independently: German writes "Ottawa" often, yet over a Zipf unit less than English
    assert zipf_frequency("Ottawa", "de") >= 2.5
    assert zipf_frequency("Ottawa", "de") < zipf_frequency("Ottawa", "en") - 1.0
    assert metric.score_entry(name, GERMAN)["code_switching_detected"] is False
    # a source word German's data does not write, kept: untranslated
    assert zipf_frequency("bigots", "de") < 2.5
    row = metric.score_entry(bigots, "Die bigots riefen.")
    assert row["leaked_tokens"] == ["bigots"]
    # the identity method copying its source is still flagged
    assert metric.score_entry(name, SOURCE)["code_switching_detected"] is True
