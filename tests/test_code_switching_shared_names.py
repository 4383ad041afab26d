"""A name the target's data writes is not untranslated text, even opening a source sentence.

Sentences: FLORES-200 devtest line 693, eng_Latn and deu_Latn (CC BY-SA 4.0, see
/work/shared/data/flores200-devtest/SOURCE.md in the project's shared data)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from conftest import DATA, REPO
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


def untranslated_by_wordfreq(word: str, source: str) -> bool:
    """The verdict recomputed from wordfreq alone, for a word of the source that no corpus
    reference uses: the target writes it a tenth as often as English, or English hardly
    knows it, or the source capitalizes it and German writes it once per 3 million words."""
    german, english = zipf_frequency(word, "de"), zipf_frequency(word, "en")
    capitalized = any(w == word and w[0].isupper() for w in source.split())
    if word.isupper():  # an acronym: the loanword comparison alone
        return german < english - 1.0 and english >= 1.0
    known = german > 0 and german >= english - 1.0
    return not (known or english < 1.0 or (capitalized and german >= 2.5))


def test_wmt23_outputs_against_verdicts_recomputed_from_wordfreq(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real WMT23 outputs (tests/data/wmt23-sxs-mqm-ende-excerpt, Apache-2.0): the human
    reference keeps the loanword "online"; two systems keep "NJ" and "School", which raters
    marked as source language fragments."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    data = importlib.import_module("mqm_data").read(DATA / "wmt23-sxs-mqm-ende-excerpt")
    corpus = english_to_german([("The bigots shouted.", "Die Eiferer riefen.")])
    metric = code_switching.build(MetricContext(corpus=corpus))
    cases = [("11", "refA", "online"), ("12", "ONLINE-G", "School"), ("12", "ONLINE-M", "NJ")]
    for segment, system, word in cases:
        source = data.sources[segment]
        entry = Entry(id=segment, source=source, reference="…")
        row = metric.score_entry(entry, data.systems[system][segment].target)
        expected = untranslated_by_wordfreq(word, source)
        assert (word in row["leaked_tokens"]) is expected, (segment, system, word)
    assert not untranslated_by_wordfreq("online", data.sources["11"])
    assert untranslated_by_wordfreq("School", data.sources["12"])
