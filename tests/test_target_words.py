"""Detectors that know the target language (issue 15): a lexicon or glossary keeps target
words out of code-switching, names and numbers across scripts are not hallucinations, and
an enumeration is not a repetition loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics import code_switching, hallucination
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.numerals import cjk_numbers
from pytest_mteval.metrics.resources import ResourceError

GERMAN = [
    # English source, German reference, and a German output using common loanwords.
    (
        "The experiment produced a strange sound.",
        "Der Versuch erzeugte ein seltsames Geräusch.",
        "Das Experiment erzeugte einen seltsamen Sound.",
    ),
    (
        "We listened to the songs twice.",
        "Wir hörten die Lieder zweimal.",
        "Wir hörten die Songs zweimal.",
    ),
    (
        "Their experiments really need a clear definition.",
        "Ihre Versuche brauchen wirklich eine klare Begriffsbestimmung.",
        "Ihre Experimente brauchen really eine klare Definition.",
    ),
]


def corpus(tmp_path: Path, resources: dict | None = None, glossary: dict | None = None):
    dataset = {
        "id": "t",
        "version": "1",
        "language_pair": "EN→DE",
        "source_language": "en",
        "target_language": "de",
        "created": "2026-12-01",
        "license": "CC0-1.0",
        "provenance": ["test"],
    }
    if resources is not None:
        (tmp_path / "resources.json").write_text(json.dumps(resources), encoding="utf-8")
        dataset["language_resources"] = "resources.json"
    if glossary is not None:
        (tmp_path / "glossary.json").write_text(json.dumps(glossary), encoding="utf-8")
        dataset["glossary"] = "glossary.json"
    entries = [{"id": i, "source": s, "reference": r} for i, (s, r, _) in enumerate(GERMAN)]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"dataset": dataset, "entries": entries}), encoding="utf-8")
    return load_corpus(path)


def leaked(loaded) -> list[str]:
    metric = code_switching.build(MetricContext(corpus=loaded))
    return [
        w
        for entry, (_, _, output) in zip(loaded.entries, GERMAN, strict=True)
        for w in metric.score_entry(entry, output)["leaked_tokens"]
    ]


def test_without_word_data_or_lexicon_german_loanwords_count_as_leaked_english(
    tmp_path, monkeypatch
):
    # A target no word-frequency list covers falls back to the corpus alone.
    monkeypatch.setattr(code_switching, "word_data", lambda *args: None)
    assert leaked(corpus(tmp_path)) == ["Experiment", "Sound", "Songs", "really", "Definition"]


def test_german_word_data_knows_the_loanwords_without_a_lexicon(tmp_path):
    pytest.importorskip("wordfreq")
    assert leaked(corpus(tmp_path)) == ["really"]


def test_a_hunspell_lexicon_accepts_loanwords_and_their_inflections(tmp_path):
    # The .dic format of Debian's hunspell-de-de: a count, then stems with affix flags.
    (tmp_path / "de.dic").write_text("4\nExperiment/EPS\nSound/S\nSong/S\nDefinition/P\n", "utf-8")
    assert leaked(corpus(tmp_path, {"language": "de", "lexicon": "de.dic"})) == ["really"]


def test_glossary_target_terms_are_target_words(tmp_path):
    glossary = {"sound": "Sound", "song": ["Song", "Lied"]}
    assert "Sound" not in leaked(corpus(tmp_path, glossary=glossary))
    assert "Songs" not in leaked(corpus(tmp_path, glossary=glossary))


def test_a_lexicon_that_does_not_match_its_pin_is_refused(tmp_path):
    (tmp_path / "de.dic").write_text("Sound\n", "utf-8")
    resources = {"language": "de", "lexicon": "de.dic", "lexicon_sha256": "0" * 64}
    with pytest.raises(ResourceError, match=r"de\.dic has sha256 .* not the declared"):
        leaked(corpus(tmp_path, resources))


@pytest.mark.skipif(not Path("/usr/share/hunspell/de_DE.dic").is_file(), reason="hunspell-de-de")
def test_debians_german_dictionary_accepts_the_loanwords(tmp_path):
    resources = {"language": "de", "lexicon": "/usr/share/hunspell/de_DE.dic"}
    assert leaked(corpus(tmp_path, resources)) == ["really"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("有些冰超过十万年。", {"100000"}),
        ("二十五", {"25"}),
        ("一亿两千万", {"120000000"}),
        ("3万人", {"30000"}),
        ("两千零五年", {"2005"}),
        ("120度", set()),
    ],
)
def test_cjk_numerals_are_read_by_value(text, values):
    assert cjk_numbers(text) == values


def zh_en(tmp_path: Path, rows: list[tuple[str, str]]):
    entries = [{"id": i, "source": s, "reference": r} for i, (s, r) in enumerate(rows)]
    dataset = {
        "id": "t",
        "version": "1",
        "language_pair": "ZH→EN",
        "source_language": "zh",
        "target_language": "en",
        "created": "2026-12-01",
        "license": "Apache-2.0",
        "provenance": ["WMT21 TED zh-en, refB"],
    }
    path = tmp_path / "zh.json"
    path.write_text(json.dumps({"dataset": dataset, "entries": entries}), encoding="utf-8")
    loaded = load_corpus(path)
    return loaded, hallucination.build(MetricContext(corpus=loaded))


# Real segments of WMT21 TED zh->en (source, refB, and a system output; Apache-2.0).
TED = [
    (
        "有些冰超过十万年。",
        "Some ice is more than ten thousand years.",
        "Some ice is more than 100000 years old.",
    ),
    (
        "世界卫生组织通过随机抽样收集数据。",
        "WHO collected data from random samples.",
        "The World Health Organization collects data through random sampling.",
    ),
    (
        "约翰·多恩（英国诗人）的话似乎有点道理： “没有人是一座孤岛。”",
        "The words of John Donne (English poet) seem to make some sense: 'No man is an island.'",
        "The words of John Donne (British poet) seem to make sense: “No one is an island.”",
    ),
    (
        "负120度，负120度，0度，0度，120度，负120度",
        "negative 120°, negative 120°, 0°, 0°, 120°, negative 120°",
        "negative 120 degrees, negative 120 degrees, 0 degrees, 0 degrees, 120 degrees, "
        "negative 120 degrees",
    ),
]


def test_correct_translations_across_scripts_are_not_hallucinations(tmp_path):
    loaded, metric = zh_en(tmp_path, [(s, r) for s, r, _ in TED])
    for entry, (_, _, output) in zip(loaded.entries, TED, strict=True):
        assert metric.reasons(entry, output) == [], output


def test_invented_numbers_and_real_loops_still_fire(tmp_path):
    loaded, metric = zh_en(tmp_path, [(s, r) for s, r, _ in TED])
    first, _, _, fourth = loaded.entries
    assert metric.reasons(first, "Some ice is more than 250000 years old.") == [
        "new_number: 250000"
    ]
    looped = "negative 120 degrees, " + "and then we fold it, " * 4
    assert any(r.startswith("repetition_loop") for r in metric.reasons(fourth, looped))


def test_part_of_its_own_reference_is_not_another_entrys_answer(tmp_path):
    # WMT21 TED zh->en, refB: two entries thank the audience; metricsystem5 answers the first
    # with "Thank you." (an omission at most) and another entry with its neighbour's answer.
    rows = [
        ("谢谢，谢谢大家。", "Thank you. Thank you, everyone."),
        ("谢谢。", "Thank you."),
        ("这对于法医学之类的很有用。", "This is actually quite useful for forensics, etc."),
        (
            "最有可能引起花粉症的花粉来自那些利用风传播花粉的植物。",
            "The pollen that would most likely cause us to get hay fever comes from plants "
            "that use the wind to spread pollen.",
        ),
    ]
    loaded, metric = zh_en(tmp_path, rows)
    outputs = [
        "Thank you.",
        "Thank you.",
        "This is useful for forensics.",
        "This is actually quite useful for forensics, etc.",
    ]
    records = [
        {
            "entry_id": e.key,
            "source": e.source,
            "expected": e.reference,
            "predicted": o,
            **metric.score_entry(e, o),
        }
        for e, o in zip(loaded.entries, outputs, strict=True)
    ]
    assert metric.aggregate(records)["another_entrys_reference"] == {"3": "2"}
