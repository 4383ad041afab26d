"""Hallucination flags on real outputs (tests/data/upstream-runs: strong models translating
the shipped Tatoeba eng-sna and eng-sme corpora), on unrelated outputs built from the same
corpora, and on hand-made defects."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.corpus import Corpus, Dataset, Entry, load_corpus
from pytest_mteval.metrics import hallucination
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.invented_names import name_checks_apply
from pytest_mteval.metrics.match import normalize

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "tests" / "data" / "upstream-runs"
CORPORA = {"eng-sna": REPO / "corpora" / "eng-sna-tatoeba-dev.json"}
CORPORA["eng-sme"] = REPO / "corpora" / "eng-sme-tatoeba-dev.json"


def runs() -> list[tuple[str, Corpus, dict[str, str]]]:
    """(run name, its corpus, entry id -> the model's output) for every shipped run."""
    found = []
    for path in sorted(RUNS.glob("*_report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        pair = Path(report["config"]["corpus_path"]).stem.removesuffix("-dev-v1")
        outputs = {e["id"]: e["predicted"] or "" for e in report["entries"]}
        found.append((path.stem, load_corpus(CORPORA[pair]), outputs))
    return found


def score(corpus: Corpus, outputs: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    metric = hallucination.build(MetricContext(corpus=corpus))
    records = []
    for entry in corpus.entries:
        predicted = outputs[entry.key]
        row = {"entry_id": entry.key, "source": entry.source, "expected": entry.reference}
        records.append({**row, "predicted": predicted, **metric.score_entry(entry, predicted)})
    return records, metric.aggregate(records)


@pytest.mark.parametrize("run", runs(), ids=lambda run: run[0])
def test_real_translations_by_strong_models_are_not_flagged(run: Any) -> None:
    _, corpus, outputs = run
    records, agg = score(corpus, outputs)
    assert len(records) == len(outputs)
    assert agg["hallucination_rate"] == 0.0, agg
    json.dumps(agg)  # run-level output stays plain JSON


def test_outputs_that_are_other_entries_references_are_flagged() -> None:
    _, corpus, _ = runs()[0]
    entries = list(corpus.entries)
    rng = random.Random(3)
    while True:
        order = list(range(len(entries)))
        rng.shuffle(order)
        if all(
            normalize(entries[j].reference) != normalize(e.reference)
            for e, j in zip(entries, order, strict=True)
        ):
            break
    outputs = {e.key: entries[j].reference for e, j in zip(entries, order, strict=True)}
    _, agg = score(corpus, outputs)
    long_enough = {k for k, v in outputs.items() if hallucination.letters(v) >= 8}
    assert long_enough <= set(agg["hallucination_entries"])
    assert agg["hallucination_rate"] >= len(long_enough) / len(entries)


def test_one_valid_sentence_for_every_input_is_flagged() -> None:
    _, corpus, _ = runs()[0]
    sentence = corpus.entries[7].reference  # "Ari mudzimai wangu." (she is my wife)
    records, agg = score(corpus, {e.key: sentence for e in corpus.entries})
    assert agg["hallucination_rate"] == 1.0  # the one entry it does translate is flagged too
    repeated = agg["same_output_for_different_sources"][normalize(sentence).casefold()]
    assert set(repeated) == {r["entry_id"] for r in records}


def entry(source: str, reference: str) -> Entry:
    return Entry(id=1, source=source, reference=reference)


@pytest.fixture
def metric() -> hallucination.Hallucination:
    built = hallucination.build(MetricContext(corpus=load_corpus(CORPORA["eng-sna"])))
    assert isinstance(built, Metric)
    return built


def reasons(metric: hallucination.Hallucination, source: str, ref: str, out: str) -> list[str]:
    found = metric.score_entry(entry(source, ref), out)["hallucination_reasons"]
    return [reason.split(":")[0] for reason in found]


def test_empty_output_and_repetition_loops(metric: hallucination.Hallucination) -> None:
    assert reasons(metric, "I love you.", "Ndinokuda.", " ... ") == ["empty_output"]
    loop = "Ndinokuda. Ndinokuda. Ndinokuda. Ndinokuda."
    assert "repetition_loop" in reasons(metric, "I love you.", "Ndinokuda.", loop)
    same = "Ha ha ha ha ha ha ha ha ha."
    assert (
        reasons(metric, "Ha ha ha ha ha ha ha ha ha.", same, same) == []
    )  # the reference loops too


def test_length_ratio_needs_a_large_gap(metric: hallucination.Hallucination) -> None:
    long = "Ari mudzimai wangu uye tinogara pamwe chete muguta guru reHarare kubva kare kare."
    assert "length_ratio" in reasons(metric, "She is my wife.", "Ari mudzimai wangu.", long)
    assert reasons(metric, "Yes.", "Ehe.", "Ehe, zvirokwazvo.") == []  # ratio > 3, gap < 15


def test_numbers_absent_from_source_and_reference(metric: hallucination.Hallucination) -> None:
    src, ref = "I am thirty years old.", "Ndine makore makumi matatu."
    assert reasons(metric, src, ref, "Ndine makore 45.") == ["new_number"]
    assert reasons(metric, "He has two cars.", "Ane mota mbiri.", "Ane mota 2.") == []
    assert reasons(metric, "It costs 1,500 dollars.", "Inoita madhora 1500.", "Inoita 1.500") == []


def test_new_names_but_not_inflected_or_transliterated_ones(
    metric: hallucination.Hallucination,
) -> None:
    src, ref = "Tom and Mary are here.", "Tom naMary varipo."
    assert reasons(metric, src, ref, "Tom naJohn varipo.") == []  # "naJohn" is not capitalized
    assert reasons(metric, src, ref, "Tom na John varipo.") == ["new_name"]
    assert reasons(metric, src, ref, "Tom na Meri varipo.") == []
    assert reasons(metric, src, ref, "Tom na Meriniň varipo.") == []
    assert reasons(metric, src, ref, "Mary naTom varipo.") == []  # sentence-initial


def test_name_checks_are_off_for_noun_capitalizing_or_uncased_targets() -> None:
    german = ["Der Hund schläft im Garten.", "Die Katze trinkt Milch aus der Schale."]
    assert not name_checks_apply(german)
    assert not name_checks_apply(["ሰላም ነው።", "እሱ የት ነው?"])
    assert name_checks_apply(["Tom naMary varipo.", "Ndinoda kuenda kuHarare na Tom."])


def test_errors_are_not_counted() -> None:
    fields = ("id", "version", "language_pair", "source_language", "target_language")
    dataset = Dataset.model_validate(
        {**dict.fromkeys(fields, "x"), "created": "2026", "license": "x", "provenance": []}
    )
    corpus = Corpus(Path("x.json"), dataset, (entry("I love you.", "Ndinokuda."),), "0" * 64)
    metric = hallucination.build(MetricContext(corpus=corpus))
    agg = metric.aggregate([{"entry_id": "1", "predicted": None, "error": "timeout"}])
    assert agg["hallucination_rate"] is None
