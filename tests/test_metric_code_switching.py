"""Code-switching on real outputs (tests/data/upstream-runs) and on hand-made defects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mteval.corpus import Corpus, Dataset, Entry, load_corpus
from pytest_mteval.metrics import code_switching, spelling
from pytest_mteval.metrics.base import Metric, MetricContext

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "tests" / "data" / "upstream-runs"
SNA = REPO / "corpora" / "eng-sna-tatoeba-dev.json"
VOCAB = REPO / "corpora" / "eng-crk-morphodict-vocab.json"


def sna_metric() -> code_switching.CodeSwitching:
    metric = code_switching.build(MetricContext(corpus=load_corpus(SNA)))
    assert isinstance(metric, Metric)
    return metric


def test_real_shona_outputs_flag_only_english_words_left_untranslated() -> None:
    metric = sna_metric()
    corpus = load_corpus(SNA)
    leaked: dict[str, list[str]] = {}
    for path in sorted(RUNS.glob("*_report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        if "eng-sna" not in report["config"]["corpus_path"]:
            continue
        outputs = {e["id"]: e["predicted"] or "" for e in report["entries"]}
        for entry in corpus.entries:
            row = metric.score_entry(entry, outputs[entry.key])
            assert row["code_switching_detected"] == bool(row["leaked_tokens"])
            if row["code_switching_detected"]:
                leaked[f"{path.stem[:30]}/{entry.key}"] = row["leaked_tokens"]
    # "Anoda butter yemunyu." (peanut butter) and "ndiyo skyscraper yakarebesa" (x2): English
    # words left in Shona. "paraffin" for the reference's "parafini" is an adapted loanword.
    assert sorted(w for words in leaked.values() for w in words) == [
        "butter",
        "skyscraper",
        "skyscraper",
    ]


def test_copied_source_is_flagged_and_the_reference_never_is() -> None:
    metric = sna_metric()
    for entry in load_corpus(SNA).entries:
        assert not metric.score_entry(entry, entry.reference)["code_switching_detected"]
    entry = next(e for e in load_corpus(SNA).entries if e.source == "She is my wife.")
    # "She", "is", "my": too short to tell apart from target words; "wife" is not.
    assert metric.score_entry(entry, "She is my wife.")["leaked_tokens"] == ["wife"]
    long_entry = next(e for e in load_corpus(SNA).entries if "skyscraper" in e.source)
    row = metric.score_entry(long_entry, long_entry.source)
    assert row["code_switching_detected"]
    assert {"tallest", "skyscraper"} <= set(row["leaked_tokens"])


def corpus(pairs: list[tuple[str, str]]) -> Corpus:
    fields = ("id", "version", "language_pair", "source_language", "target_language")
    dataset = Dataset.model_validate(
        {**dict.fromkeys(fields, "x"), "created": "2026", "license": "x", "provenance": []}
    )
    entries = tuple(Entry(id=i, source=s, reference=r) for i, (s, r) in enumerate(pairs))
    return Corpus(Path("x.json"), dataset, entries, "0" * 64)


def test_wrong_script_tokens_but_not_names_taken_from_the_source() -> None:
    amharic = corpus([("Where is Tom?", "ቶም የት ነው?"), ("It is peace.", "ሰላም ነው።")])
    metric = code_switching.build(MetricContext(corpus=amharic))
    assert metric.target_system == "Ethiopic"
    where, peace = amharic.entries
    row = metric.score_entry(peace, "ሰላም 아름다운 ነው።")
    assert row["wrong_script_tokens"] == ["아름다운"]
    assert row["code_switching_detected"]
    assert metric.score_entry(where, "Tom የት ነው?")["code_switching_detected"] is False


def test_scripts_used_by_the_reference_are_allowed() -> None:
    mixed = corpus([("I use Linux.", "ሊኑክስ Linux እጠቀማለሁ።"), ("It is peace.", "ሰላም ነው።")])
    metric = code_switching.build(MetricContext(corpus=mixed))
    assert metric.score_entry(mixed.entries[0], "Linux እጠቀማለሁ።")["wrong_script_tokens"] == []


def test_rate_over_translated_entries() -> None:
    metric = sna_metric()
    records: list[dict[str, object]] = [
        {"code_switching_detected": True},
        {"code_switching_detected": False},
        {"predicted": None, "error": "timeout"},
    ]
    assert metric.aggregate(records)["code_switching_rate"] == 0.5
    assert metric.aggregate([{"predicted": None}])["code_switching_rate"] is None


@pytest.mark.parametrize(
    ("word", "others", "expected"),
    [("paraffin", ["parafini"], True), ("lucia", ["lucia"], True), ("butter", ["dovi"], False)],
)
def test_spelling_likeness(word: str, others: list[str], expected: bool) -> None:
    assert spelling.similar_to_any(word, others) is expected


def test_target_analyzer_exempts_its_words() -> None:
    metric = code_switching.build(MetricContext(corpus=load_corpus(VOCAB)))
    assert metric.is_target_word is not None
    assert metric.is_target_word("atim")
    assert not metric.is_target_word("dog")
    entry = Entry(id=1, source="the dog atim", reference="atim")
    assert metric.score_entry(entry, "atimwak")["leaked_tokens"] == []
    entry = Entry(id=1, source="big house", reference="misikitiw")
    assert metric.score_entry(entry, "house")["leaked_tokens"] == ["house"]
    dog = next(e for e in load_corpus(VOCAB).entries if e.source == "dog")
    assert metric.score_entry(dog, "dog")["leaked_tokens"] == ["dog"]  # short, but rejected


def test_a_word_judged_by_one_entrys_reference_is_judged_again_in_the_next() -> None:
    """Without word data the reference explains a source word; what a word's first entry
    said must not be remembered for the next (the metric keeps entry-free facts per word)."""
    pairs = [("the big mountain", "gomo guru mountainz"), ("the mountain is far", "ruri kure")]
    metric = code_switching.build(MetricContext(corpus=corpus(pairs)))
    assert metric.word_data is None
    first, second = corpus(pairs).entries
    assert metric.score_entry(first, "gomo mountain")["leaked_tokens"] == []  # spelt alike
    assert metric.score_entry(second, "mountain ruri kure")["leaked_tokens"] == ["mountain"]
    assert metric.score_entry(first, "mountain guru")["leaked_tokens"] == []


def test_verdicts_do_not_depend_on_what_the_metric_judged_before() -> None:
    """Every entry of a real corpus with word data (eng->fra), judged after all the others,
    gets the verdict a fresh metric gives it."""
    flores = load_corpus(REPO / "corpora" / "eng-fra-flores-devtest.json")
    entries = flores.entries[:120]
    used = code_switching.build(MetricContext(corpus=flores))
    assert used.word_data is not None
    outputs = [(e, text) for e in entries for text in (e.source, e.reference)]
    for entry, text in outputs:
        used.score_entry(entry, text)
    for entry, text in reversed(outputs):
        fresh = code_switching.build(MetricContext(corpus=flores))
        assert used.score_entry(entry, text) == fresh.score_entry(entry, text)
