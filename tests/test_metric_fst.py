"""FST acceptance, checked against hfst's own lookup on real Plains Cree and English words.

The Cree words are the headwords of the shipped morphodict corpus (human-chosen dictionary
forms) plus inflected forms from the analyzer's SOURCE notice; the English words are that
corpus's English sources. The strict analyzer ships in corpora/resources/crk (AGPL-3.0).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import hfst
import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics import fst
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.text import words

REPO = Path(__file__).resolve().parents[1]
CRK = REPO / "corpora" / "resources" / "crk"
STRICT = CRK / "crk-strict-analyzer-for-dictionary.hfstol"
VOCAB = REPO / "corpora" / "eng-crk-morphodict-vocab.json"
DESCRIPTIVE = REPO.parent / "shared" / "data" / "crk-fst" / "crk-descriptive-analyzer.hfstol"
INFLECTED = ["niwâpamâw", "nikî-nipân", "ê-nipât", "atimwak", "tânisi", "niwâpamêw", "niwapamaw"]
FLAG = re.compile(r"@[PNDRCU]\.[^@]*@")


def hfst_lookup(path: Path, word: str) -> list[str]:
    """hfst's own answer, flags stripped: the independent reference for every check here."""
    transducer = hfst.HfstInputStream(str(path)).read()
    return list(dict.fromkeys(FLAG.sub("", a) for a, _ in transducer.lookup(word)))


def vocabulary() -> tuple[list[str], list[str]]:
    data = json.loads(VOCAB.read_text(encoding="utf-8"))
    cree = {w for e in data["entries"] for t in [e["reference"], *e["variants"]] for w in t.split()}
    english = {w for e in data["entries"] for w in e["source"].split()}
    return sorted(cree)[::7], sorted(english)[::7]


@pytest.fixture(scope="module")
def transducer() -> object:
    return hfst.HfstInputStream(str(STRICT)).read()


def test_analyzer_agrees_with_hfst_lookup_on_real_cree_and_english(transducer: object) -> None:
    analyzer = fst.load_analyzer(STRICT)
    cree, english = vocabulary()
    assert len(cree) > 50
    assert len(english) > 50
    for word in [*cree, *english, *INFLECTED]:
        expected = list(dict.fromkeys(FLAG.sub("", a) for a, _ in transducer.lookup(word)))  # type: ignore[attr-defined]
        assert analyzer.analyses(word) == expected, word
        assert analyzer.accepts(word) == bool(expected), word
    assert sum(map(analyzer.accepts, cree)) > 0.8 * len(cree)
    assert sum(map(analyzer.accepts, english)) < 0.05 * len(english)


def test_flag_diacritics_are_enforced_and_stripped() -> None:
    analyzer = fst.load_analyzer(STRICT)
    assert analyzer.analyses("niwâpamâw") == ["wâpamêw+V+TA+Ind+1Sg+3SgO"]
    assert not analyzer.accepts("niwâpamêw")  # ni- with -êw: only the flags forbid it
    assert all("@" not in a for a in analyzer.analyses("atim"))


def test_capitalized_words_are_looked_up_lower_cased() -> None:
    analyzer = fst.load_analyzer(STRICT)
    assert hfst_lookup(STRICT, "Atim") == []  # the analyzer itself is lower-case only
    assert analyzer.analyses("Atim") == hfst_lookup(STRICT, "atim")
    assert not analyzer.accepts("Dog")


def test_analyzer_is_loaded_once_per_resolved_path_and_versioned_by_sha256() -> None:
    relative = Path("corpora/resources/crk/../crk") / STRICT.name
    assert fst.load_analyzer(STRICT) is fst.load_analyzer(REPO / relative)
    assert fst.load_analyzer(STRICT).sha256 == hashlib.sha256(STRICT.read_bytes()).hexdigest()


def test_missing_or_broken_analyzer_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(fst.FstError, match="no such analyzer"):
        fst.load_analyzer(tmp_path / "none.hfstol")
    pointer = tmp_path / "lfs.hfstol"
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n")
    with pytest.raises(fst.FstError, match="cannot load"):
        fst.load_analyzer(pointer)


def test_words_keep_in_word_hyphens_and_drop_numbers_and_punctuation() -> None:
    assert words("Nikî-nipân, ê-nipât! 42 atim... (3rd)") == ["Nikî-nipân", "ê-nipât", "atim"]
    assert fst.words("don't «stop»") == ["don't", "stop"]
    decomposed = "niwa\u0302pama\u0302w"  # combining circumflexes, as some keyboards type them
    assert words(decomposed) == ["niwâpamâw"]


def cree_context() -> MetricContext:
    return MetricContext(corpus=load_corpus(VOCAB))


def test_build_finds_the_analyzer_through_the_corpus_language_resources() -> None:
    metric = fst.build(cree_context())
    assert isinstance(metric, Metric)
    assert metric is not None
    assert metric.analyzer.path == STRICT.resolve()


def test_build_prefers_the_command_line_analyzer_and_returns_none_without_one(
    tmp_path: Path,
) -> None:
    corpus = load_corpus(VOCAB)
    assert fst.build(MetricContext(corpus=corpus, fst_path=STRICT)) is not None
    plain = tmp_path / "plain.json"
    data = json.loads(VOCAB.read_text(encoding="utf-8"))
    del data["dataset"]["language_resources"]
    plain.write_text(json.dumps(data), encoding="utf-8")
    assert fst.build(MetricContext(corpus=load_corpus(plain))) is None


def test_entry_and_run_figures_count_words_against_hfst() -> None:
    metric = fst.build(cree_context())
    assert metric is not None
    entry = load_corpus(VOCAB).entries[0]
    outputs = ["Niwâpamâw atim.", "niwâpamâw the dog", "42 !", "nikî-nipân"]
    records = [{"entry_id": str(i), **metric.score_entry(entry, p)} for i, p in enumerate(outputs)]
    records.append({"entry_id": "err", "predicted": None, "error": "timeout"})
    expected_words = [words(p) for p in outputs]
    expected_ok = [[w for w in ws if hfst_lookup(STRICT, w.lower())] for ws in expected_words]
    assert [r["fst_words"] for r in records[:4]] == [len(ws) for ws in expected_words]
    assert [r["fst_accepted_words"] for r in records[:4]] == [len(ws) for ws in expected_ok]
    assert records[1]["fst_rejected_words"] == ["the", "dog"]
    assert [r["fst_valid"] for r in records[:4]] == [True, False, None, True]
    run = metric.aggregate(records)
    assert run["fst_acceptance_rate"] == sum(map(len, expected_ok)) / sum(map(len, expected_words))
    assert run["fst_accepted"] == 2
    assert run["fst_version"] == hashlib.sha256(STRICT.read_bytes()).hexdigest()


def test_run_without_words_has_no_acceptance_rate() -> None:
    metric = fst.build(cree_context())
    assert metric is not None
    assert metric.aggregate([{"predicted": None}])["fst_acceptance_rate"] is None


@pytest.mark.skipif(not DESCRIPTIVE.is_file(), reason="needs ../shared/data/crk-fst")
def test_descriptive_analyzer_format_works_too() -> None:
    analyzer = fst.load_analyzer(DESCRIPTIVE)
    for word in ["niwapamaw", "niwâpamâw", "atim", "dog", "niwâpamêw"]:
        assert analyzer.analyses(word) == hfst_lookup(DESCRIPTIVE, word), word
    assert analyzer.accepts("niwapamaw")
    assert not analyzer.accepts("dog")
