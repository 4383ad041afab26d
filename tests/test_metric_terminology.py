"""Terminology adherence on real FLORES eng->fra sentences with a small glossary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.resources import ResourceError
from pytest_mteval.metrics.terminology import TerminologyAdherence, build, occurs

REPO = Path(__file__).resolve().parents[1]
FLORES = REPO / "corpora" / "eng-fra-flores-devtest.json"
GLOSSARY = {"diabetes": "diabète", "mice": ["souris", "rongeurs"], "Nobel Prize": "prix Nobel"}


def corpus_with(tmp_path: Path, glossary: object, count: int = 4) -> Path:
    data = json.loads(FLORES.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:count]
    data["dataset"]["glossary"] = "terms/glossary.json"
    (tmp_path / "terms").mkdir()
    (tmp_path / "terms" / "glossary.json").write_text(json.dumps(glossary), encoding="utf-8")
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def metric_and_entries(tmp_path: Path) -> tuple[TerminologyAdherence, list]:  # type: ignore[type-arg]
    corpus = load_corpus(corpus_with(tmp_path, GLOSSARY))
    metric = build(MetricContext(corpus=corpus))
    assert metric is not None
    return metric, list(corpus.entries)


def test_references_meet_their_own_glossary(metric_and_entries) -> None:  # type: ignore[no-untyped-def]
    metric, entries = metric_and_entries
    rows = [metric.score_entry(e, e.reference) for e in entries]
    # entry 1 has "mice", entry 3 "diabetes" (twice: once required), entry 4 "Nobel Prize";
    # entry 2's "Diabetes Association" names the term too.
    assert [r["terminology_required"] for r in rows] == [1, 1, 1, 1]
    assert [r["terminology_adherence"] for r in rows] == [1.0, 1.0, 1.0, 1.0]


def test_missing_terms_are_listed_and_alternatives_accepted(metric_and_entries) -> None:  # type: ignore[no-untyped-def]
    metric, entries = metric_and_entries
    miss = metric.score_entry(entries[2], "Il doute que le diabete puisse être guéri.")
    assert miss["terminology_missing"] == ["diabète"]
    assert miss["terminology_adherence"] == 0.0
    alt = metric.score_entry(entries[0], "Nous avons des rongeurs de 4 mois.")
    assert alt["terminology_adherence"] == 1.0
    run = metric.aggregate([miss, alt, {"predicted": None}])
    assert run == {"terminology_adherence": 0.5, "terminology_required": 2}


def test_whole_words_in_the_source_word_starts_in_the_prediction() -> None:
    assert not occurs("cat", "a category of things", whole_word=True)
    assert occurs("cat", "the cat sat", whole_word=True)
    assert occurs("talo", "asun talossa", whole_word=False)
    assert not occurs("talo", "kaupungintalo", whole_word=False)
    assert occurs("東京", "私は東京に住む", whole_word=False)


def test_entry_terms_override_the_glossary(tmp_path: Path) -> None:
    data = json.loads(corpus_with(tmp_path, GLOSSARY).read_text(encoding="utf-8"))
    data["entries"][2]["terms"] = {"diabetes": "diabète sucré"}
    path = tmp_path / "with-terms.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    corpus = load_corpus(path)
    metric = build(MetricContext(corpus=corpus))
    assert metric is not None
    row = metric.score_entry(corpus.entries[2], corpus.entries[2].reference)
    assert row["terminology_missing"] == ["diabète sucré"]


def test_no_glossary_no_metric_and_a_bad_glossary_is_a_clear_error(tmp_path: Path) -> None:
    assert build(MetricContext(corpus=load_corpus(FLORES))) is None
    with pytest.raises(ResourceError, match="maps each source term"):
        build(MetricContext(corpus=load_corpus(corpus_with(tmp_path, ["diabetes"]))))
