"""Wrong-language output (metrics/output_language.py) and the ``wrong_language`` flag that caps
the tier (scoring/guards.py), on FLORES-200's human translations: other languages' references
given as a target's output must be flagged, the target's own must not be. Data:
tests/data/flores200-devtest-excerpt (CC-BY-SA-4.0, see its SOURCE.md) and the shipped
corpora/eng-fra-flores-devtest.json (entries 1-100 are the excerpt's lines 1-100)."""

from __future__ import annotations

import csv
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import wordfreq
from replayed_runs import REPLAY, card_dict

from pytest_mteval.metrics import output_language
from pytest_mteval.metrics.output_language import (
    LIST_FLOOR,
    MARGIN,
    MIN_WORDS,
    judged_words,
    list_language,
    wrong_language,
)
from pytest_mteval.metrics.text import words
from pytest_mteval.scoring import guards

REPO = Path(__file__).resolve().parents[1]
EXCERPT = REPO / "tests" / "data" / "flores200-devtest-excerpt"
FLORES_FRA = REPO / "corpora" / "eng-fra-flores-devtest.json"
TED = REPO / "tests" / "data" / "wmt21-ted-mqm-zhen-excerpt" / "mqm_ted_zhen.tsv"
SIZE = 100


def lines(language: str) -> list[str]:
    return (EXCERPT / f"{language}_Latn.first100").read_text(encoding="utf-8").splitlines()


@cache
def french_entries() -> list[dict[str, Any]]:
    corpus = json.loads(FLORES_FRA.read_text(encoding="utf-8"))
    return list(corpus["entries"][:SIZE])


def french() -> list[str]:
    return [e["reference"] for e in french_entries()]


def english() -> list[str]:
    return [e["source"] for e in french_entries()]


def as_references(texts: list[str]) -> list[list[str]]:
    return [[t] for t in texts]


def wrong_share(outputs: list[str], references: list[str], target: str) -> float:
    verdicts = wrong_language(outputs, as_references(references), target)
    decided = [v for v in verdicts if v.decided]
    assert len(decided) >= 0.9 * len(outputs)  # FLORES sentences are long enough to judge
    return sum(v.wrong for v in decided) / len(decided)


# --- the check, per language, target with a wordfreq list (French) --------------------------


def test_spanish_references_as_french_output_read_as_spanish():
    verdicts = wrong_language(lines("spa"), as_references(french()), "fra")
    wrong = [v for v in verdicts if v.wrong]
    assert len(wrong) >= 0.9 * SIZE
    assert sum(v.reads_as == "es" for v in wrong) >= 0.9 * len(wrong)


def test_english_and_german_references_as_french_output_are_flagged():
    for language, code in (("eng", "en"), ("deu", "de")):
        texts = english() if language == "eng" else lines("deu")
        verdicts = wrong_language(texts, as_references(french()), "fr")
        assert sum(v.wrong for v in verdicts) >= 0.9 * SIZE, language
        assert {v.reads_as for v in verdicts if v.wrong} <= {code, "not fr"}, language


def test_quechua_references_as_french_output_are_flagged():
    # No list holds Quechua: the French list knowing too few of its words is the evidence.
    assert wrong_share(lines("quy"), french(), "fr") >= 0.9


def test_french_references_as_french_output_are_not_flagged():
    assert wrong_share(french(), french(), "fr") == 0.0


def test_each_listed_target_keeps_its_own_references_and_refuses_the_others():
    texts = {"fr": french(), "en": english(), "es": lines("spa"), "de": lines("deu")}
    for target, references in texts.items():
        outputs = [text for language in texts for text in texts[language]]
        verdicts = wrong_language(outputs, as_references(references) * len(texts), target)
        for n, language in enumerate(texts):
            judged = [v for v in verdicts[n * SIZE : (n + 1) * SIZE] if v.decided]
            share = sum(v.wrong for v in judged) / len(judged)
            if language == target:
                assert share <= 0.02, target
            else:
                assert share >= 0.9, (language, target)


def test_the_verdict_follows_wordfreqs_own_frequencies():
    # An independent computation with wordfreq's public API: each word's Zipf in its small
    # lists, a missing word at the list's cut-off; the rule of the module docstring on them.
    languages = [
        code for code in wordfreq.available_languages("small") if code not in {"zh", "ja", "ko"}
    ]
    checked = 0
    for output in lines("spa")[:12] + french()[:12]:
        judged = judged_words(output)
        if any(not word.isalpha() for word in judged):
            continue  # joined words: wordfreq's tokenizer splits them its own way
        checked += 1
        zipfs = {
            code: [wordfreq.zipf_frequency(w, code, wordlist="small") for w in judged]
            for code in languages
        }
        means = {code: sum(max(z, LIST_FLOOR) for z in zs) / len(zs) for code, zs in zipfs.items()}
        best_other = max(means[code] for code in languages if code != "fr")
        known = sum(z > 0 for z in zipfs["fr"]) / len(judged)
        expected = best_other - means["fr"] >= MARGIN or known < 0.5
        (verdict,) = wrong_language([output], [[output]], "fr")
        assert verdict.wrong is expected, output
    assert checked >= 10


def test_the_zipf_matrix_is_wordfreqs_zipf_frequency():
    vocabulary = [w for w in dict.fromkeys(judged_words(" ".join(lines("spa")[:5]))) if w.isalpha()]
    matrix = output_language._zipf_matrix(vocabulary, ["es", "fr"], joined=True)
    for row, word in enumerate(vocabulary):
        for column, code in enumerate(["es", "fr"]):
            expected = wordfreq.zipf_frequency(word, code, wordlist="small")
            found = matrix[row, column]
            assert (math.isnan(found) and expected == 0) or found == pytest.approx(expected), word


# --- target without a list (Quechua): the corpus's other references stand in -------------


def test_quechua_target_keeps_quechua_and_refuses_spanish_english_french():
    quechua = lines("quy")
    assert list_language("quy") is None
    assert wrong_share(quechua, quechua, "quy") <= 0.02
    spanish = wrong_language(lines("spa"), as_references(quechua), "quy")
    assert sum(v.wrong for v in spanish) >= 0.8 * SIZE
    assert {v.reads_as for v in spanish if v.wrong} == {"es"}
    for outputs in (english(), french(), lines("deu")):
        assert wrong_share(outputs, quechua, "quy") >= 0.9


def test_an_entrys_own_reference_does_not_vouch_for_its_output():
    # Spanish given for a Quechua target whose only Spanish words are in that entry's own
    # reference: the other entries' references do not use them, so it is still Spanish.
    quechua = lines("quy")
    spanish = lines("spa")[0]
    references = [[spanish], *as_references(quechua[1:])]
    outputs = [spanish, *quechua[1:]]
    verdicts = wrong_language(outputs, references, "quy")
    assert verdicts[0].wrong
    assert verdicts[0].reads_as == "es"


# --- writing systems and short outputs ------------------------------------------------------


def chinese_sentences() -> list[str]:
    with TED.open(encoding="utf-8") as table:
        sources = [row["source"] for row in csv.DictReader(table, delimiter="\t")]
    return [s for s in dict.fromkeys(sources) if len(words(s)) >= MIN_WORDS]


def test_an_output_in_another_writing_system_is_flagged_by_its_script():
    chinese = chinese_sentences()[:5]
    assert chinese
    verdicts = wrong_language(chinese, as_references(french()[: len(chinese)]), "fr")
    assert [v.reads_as for v in verdicts] == ["script CJK"] * len(chinese)
    # unless the entry's own reference is written in it (a quotation kept in its script)
    quoted = [[chinese[0]], *as_references(french()[1:])]
    own = wrong_language(chinese[:1] + french()[1:], quoted, "fr")
    assert not own[0].wrong


def test_a_target_in_a_writing_system_without_lists_is_left_alone():
    # Chinese, Japanese and Korean lists need a segmenter: a Chinese target has no list to
    # compare its outputs with, and the check says nothing rather than failing the card.
    chinese = chinese_sentences()
    verdicts = wrong_language(chinese, as_references(chinese), "zh")
    assert not any(v.wrong for v in verdicts)
    assert any(v.decided for v in verdicts)


def test_short_outputs_are_left_undecided():
    # A word or two, names left out, cannot tell Spanish from French: no verdict, no flag.
    outputs = [
        "Sí, claro.",
        "Los Ángeles",
        "Gracias por todo",
        "Madrid y Barcelona, Sevilla y Valencia",
    ]
    verdicts = wrong_language(outputs, as_references(french()[:4]), "fr")
    assert [v.decided for v in verdicts] == [False] * 4
    assert not any(v.wrong for v in verdicts)
    assert guards.wrong_language_rate(verdicts) is None


def test_languages_are_found_under_their_lists_names():
    assert [list_language(c) for c in ("fra", "fr-CA", "pol", "bos", "nob", "quy", "crk")] == [
        "fr",
        "fr",
        "pl",
        "sh",
        "nb",
        None,
        None,
    ]


# --- the run's flag and the tier cap ----------------------------------------------------------


def records(outputs: list[str | None], errors: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "entry_id": f"e{i}",
            "source": english()[i],
            "expected": french()[i],
            "variants": [],
            "predicted": output,
            "error": "timeout" if i < errors else None,
        }
        for i, output in enumerate(outputs)
    ]


def flags_of(run: list[dict[str, Any]]) -> list[guards.Flag]:
    verdicts = guards.output_languages(run, "fr")  # type: ignore[arg-type]
    return guards.run_flags(run, languages=verdicts, target_language="fr")  # type: ignore[arg-type]


def test_a_spanish_run_is_flagged_per_entry_and_its_tier_capped():
    (flag,) = flags_of(records(lines("spa")))
    assert flag["code"] == "wrong_language"
    verdicts = guards.output_languages(records(lines("spa")), "fr")  # type: ignore[arg-type]
    assert flag["entry_ids"] == [f"e{i}" for i, v in enumerate(verdicts) if v.wrong]
    assert "read as es" in flag["message"]
    assert guards.cap_tier("functional", [flag]) == "emerging"
    assert guards.cap_tier("deployable (candidate, needs community review)", [flag]) == "emerging"


def test_a_fifth_of_the_answered_entries_makes_the_run_wrong_language():
    # 20 Spanish outputs among 100: at the threshold. 15: below it, no flag.
    spanish, french_refs = lines("spa"), french()
    wrong_20 = [
        i
        for i, v in enumerate(wrong_language(spanish, as_references(french_refs), "fr"))
        if v.wrong
    ][:20]
    mixed = [spanish[i] if i in wrong_20 else french_refs[i] for i in range(SIZE)]
    assert [f["code"] for f in flags_of(records(mixed))] == ["wrong_language"]
    fewer = [spanish[i] if i in wrong_20[:15] else french_refs[i] for i in range(SIZE)]
    assert flags_of(records(fewer)) == []


def test_errored_entries_are_not_judged():
    outputs: list[str | None] = [None] * 10 + french()[10:]
    run = records(outputs, errors=10)
    verdicts = guards.output_languages(run, "fr")  # type: ignore[arg-type]
    assert [v.words for v in verdicts[:10]] == [0] * 10
    assert flags_of(run) == []


# --- a whole session: FLORES's Spanish references replayed as eng->fra output ----------------


def replayed(tmp_path: Path, outputs: list[str]) -> dict[str, Any]:
    import subprocess
    import sys

    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"id": str(e["id"]), "predicted": text}, ensure_ascii=False) + "\n"
            for e, text in zip(french_entries(), outputs, strict=True)
        ),
        encoding="utf-8",
    )
    card = tmp_path / "card.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--mteval-corpus={FLORES_FRA}",
            f"--mteval-method={REPLAY}",
            f"--mteval-method-arg=predictions={predictions}",
            f"--mteval-entry=1-{SIZE}",
            f"--mteval-run-card={card}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert card.exists(), done.stdout + done.stderr
    return {**card_dict(card), "terminal": done.stdout}


def test_spanish_replayed_as_french_is_flagged_and_capped(tmp_path: Path):
    card = replayed(tmp_path, lines("spa"))
    (flag,) = [f for f in card["flags"] if f["code"] == "wrong_language"]
    assert len(flag["entry_ids"]) >= 0.9 * SIZE
    scores = card["scores"]
    assert scores["wrong_language_rate"] >= 0.9
    assert scores["quality_tier"] == guards.cap_tier(scores["quality_tier_uncapped"], [flag])
    assert scores["quality_tier"] in {"emerging", "baseline"}
    assert "FLAG             wrong_language" in card["terminal"]


def test_french_replayed_as_french_is_not_flagged(tmp_path: Path):
    card = replayed(tmp_path, french())
    assert "wrong_language" not in [f["code"] for f in card["flags"]]
    assert card["scores"]["wrong_language_rate"] == 0.0
