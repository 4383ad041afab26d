"""The target language's word data (wordfreq's lists): the rule checked on a table of
frequencies written by hand, and on the shipped lists against wordfreq called directly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.word_data import WordData, word_data

#: Zipf frequencies by hand (not wordfreq's): (word, language) -> value.
TABLE = {
    ("song", "de"): 4.7,
    ("song", "en"): 5.3,
    ("really", "de"): 3.4,
    ("really", "en"): 6.0,
    ("edge", "de"): 4.0,
    ("edge", "en"): 5.0,
    ("past", "de"): 3.9,
    ("past", "en"): 5.0,
    ("sapiens", "en"): 0.5,
    ("sapiens", "de"): 0.0,
}


def by_hand(word: str, language: str) -> float:
    return TABLE.get((word.casefold(), language), 0.0)


def test_known_when_the_target_uses_it_a_tenth_as_often_as_the_source():
    data = WordData(by_hand, "en", "de")
    assert data.target_knows("Song")  # 4.7 >= 5.3 - 1
    assert not data.target_knows("really")  # 3.4 < 6.0 - 1
    assert data.target_knows("edge")  # 4.0 >= 5.0 - 1: the boundary is known
    assert not data.target_knows("past")  # 3.9 < 4.0
    assert not data.target_knows("unheard")  # no frequency in the target at all


def test_without_a_source_list_once_per_million_target_words():
    data = WordData(by_hand, None, "de")
    assert data.target_knows("Song")  # 4.7 >= 3
    assert data.target_knows("edge")  # 4.0 >= 3
    assert data.target_knows("really")  # 3.4 >= 3: without the source's list, it passes
    assert not data.target_knows("sapiens")
    assert not data.foreign_to_source("sapiens")  # no source list: nothing is foreign


def test_words_the_source_data_hardly_knows_are_not_source_words():
    data = WordData(by_hand, "en", "de")
    assert data.foreign_to_source("sapiens")  # 0.5 < 1
    assert not data.foreign_to_source("really")


def test_languages_no_list_covers_fall_back_to_the_corpus():
    assert word_data("en", "crk") is None
    assert word_data("en", "se") is None
    assert word_data("en", "zh") is None  # its list needs a segmenter


def test_the_shipped_lists_agree_with_wordfreq_called_directly():
    wordfreq = pytest.importorskip("wordfreq")
    data = word_data("eng", "de-DE")
    assert data is not None
    assert (data.source, data.target) == ("en", "de")
    for word in ("Song", "really", "Jury", "the", "Experiment", "weekend", "Bigots"):
        de, en = wordfreq.zipf_frequency(word, "de"), wordfreq.zipf_frequency(word, "en")
        assert data.target_knows(word) == (de > 0 and de >= en - 1.0), word


def entry(source: str, reference: str) -> Entry:
    return Entry(id="1", source=source, reference=reference)


def test_untranslated_only_what_german_does_not_know():
    pytest.importorskip("wordfreq")
    data = word_data("en", "de")
    metric = code_switching.CodeSwitching(None, frozenset(), frozenset(), word_data=data)
    source = "The Homo sapiens bigots met the Fire Service and really liked the song."
    reference = "Die Frömmler der Art Homo sapiens trafen die Feuerwehr und mochten das Lied."
    output = "Die Homo sapiens Bigots trafen den Fire Service and mochten really den Song."
    # Names capitalized inside the source's sentences (Homo, Fire, Service), a loanword
    # German uses (Song), words under 4 letters ("and") and a scientific name are not
    # untranslated; "bigots" and "really" are English words German does not use.
    assert metric.leaked(code_switching.words(output), entry(source, reference)) == [
        "Bigots",
        "really",
    ]


def test_a_word_the_corpus_translators_used_is_the_targets_even_with_word_data():
    pytest.importorskip("wordfreq")
    data = word_data("en", "de")
    source, reference = "They really are bigots.", "Sie sind wirklich Eiferer."
    output = "Sie sind really Bigots."
    alone = code_switching.CodeSwitching(None, frozenset(), frozenset(), word_data=data)
    used = code_switching.CodeSwitching(None, frozenset({"bigots"}), frozenset(), word_data=data)
    assert alone.leaked(code_switching.words(output), entry(source, reference)) == [
        "really",
        "Bigots",
    ]
    assert used.leaked(code_switching.words(output), entry(source, reference)) == ["really"]


def test_the_covered_languages_are_wordfreqs_own():
    wordfreq = pytest.importorskip("wordfreq")
    from pytest_mteval.metrics.word_data import _NEEDS_SEGMENTER, _covered

    assert _covered() == frozenset(wordfreq.available_languages()) - _NEEDS_SEGMENTER


def test_word_data_reads_wordfreq_only_when_a_word_is_asked():
    """A run whose outputs ask about no word (an output in the target's own script) does not
    import wordfreq and langcodes; the first word asked does."""
    pytest.importorskip("wordfreq")
    code = (
        "import sys\n"
        "from pytest_mteval.metrics.word_data import word_data\n"
        "data = word_data('en', 'fr', ['The song was really good.'])\n"
        "print('wordfreq' in sys.modules)\n"
        "data.target_knows('song')\n"
        "print('wordfreq' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_word_data_loaded_before_a_word_is_asked_answers_as_wordfreq_does(
    monkeypatch: pytest.MonkeyPatch,
):
    """``load()`` (the scorer process's preparation) reads both lists, once, and what they
    answer afterwards is wordfreq's own answer."""
    wordfreq = pytest.importorskip("wordfreq")
    from pytest_mteval.metrics import word_frequencies

    read: list[str] = []
    real_read = word_frequencies.ZipfTable._read

    def counted(self: word_frequencies.ZipfTable, texts: list[str]) -> None:
        read.append(self.language)
        real_read(self, texts)

    monkeypatch.setattr(word_frequencies.ZipfTable, "_read", counted)
    text = "The jury said the song was really good, and the DOJ agreed."
    data = word_data("en", "de", [text])
    assert data is not None
    data.load()
    assert sorted(read) == ["de", "en"]
    data.load()
    for word in ("jury", "song", "really", "DOJ", "zebra"):
        data.target_knows(word)
    assert sorted(read) == ["de", "en"]  # read once, at load
    table = word_frequencies.ZipfTable("de", [text])
    table.load()
    for word in ("jury", "song", "really", "DOJ", "zebra"):
        assert table.zipf(word) == wordfreq.zipf_frequency(word, "de")
