"""The shipped identity, replay and dictionary methods, run as users run them."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import CORPORA, DATA, METHODS, envelope

from pytest_mteval.cards.submission_rules import file_sha256s, method_problems
from pytest_mteval.corpus import load_corpus
from pytest_mteval.methods.loader import find_method
from pytest_mteval.methods.manifest import load_manifest
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.batch_translation import method_view

pytest_plugins = ["pytester"]

GEMINI_SME = (
    DATA
    / "upstream-runs"
    / "run_20260612_125923_google_gemini35flash_naive_all_b25_c184e6_report.json"
)


def translate(folder, entries, **method_args):
    source = find_method(str(METHODS / folder), METHODS, {})
    method = source.factory(RunConfig())
    config = RunConfig(method_args=method_args)
    return asyncio.run(method.translate([method_view(e) for e in entries], config))


def test_identity_returns_the_source():
    entries = load_corpus(CORPORA / "eng-fra-flores-devtest.json").entries[:3]
    assert [r["predicted"] for r in translate("identity", entries)] == [e.source for e in entries]


def test_replay_reads_a_reference_harness_report():
    entries = load_corpus(CORPORA / "eng-sme-tatoeba-dev.json").entries
    report = json.loads(GEMINI_SME.read_text(encoding="utf-8"))
    expected = {e["id"]: e["predicted"] for e in report["entries"]}
    results = translate("replay", entries, predictions=str(GEMINI_SME))
    assert {r["id"]: r["predicted"] for r in results} == expected


def test_replay_jsonl_matches_ids_as_text_and_reports_missing(tmp_path):
    entries = load_corpus(CORPORA / "eng-fra-flores-devtest.json").entries[:3]
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": "1", "predicted": "un"}\n\n{"id": 2, "predicted": "deux"}\n')
    results = translate("replay", entries, predictions=str(jsonl))
    assert [r["predicted"] for r in results] == ["un", "deux", None]
    assert results[2]["error"] == "no recorded prediction"


def test_dictionary_looks_words_up_and_passes_unknown_words_through(tmp_path):
    wordlist = tmp_path / "w.tsv"
    wordlist.write_text("dog\tatim\nwater\tnipiy\n", encoding="utf-8")
    corpus = load_corpus(CORPORA / "eng-crk-morphodict-vocab.json")
    entries = [e for e in corpus.entries if e.source in ("dog", "water")]
    results = translate("dictionary", entries, wordlist=str(wordlist))
    assert sorted(r["predicted"] for r in results) == ["atim", "nipiy"]


def test_dictionary_bundled_list_is_used_by_default():
    corpus = load_corpus(CORPORA / "eng-crk-morphodict-vocab.json")
    results = translate("dictionary", corpus.entries[:20])
    assert all(r["error"] is None for r in results)
    assert any(
        r["predicted"] != e.source for r, e in zip(results, corpus.entries[:20], strict=True)
    )


def test_replay_missing_prediction_fails_only_that_item(pytester, tmp_path):
    corpus = tmp_path / "c.json"
    corpus.write_text(
        json.dumps(envelope([{"id": i, "source": f"s{i}", "reference": f"r{i}"} for i in (1, 2)])),
        encoding="utf-8",
    )
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": 1, "predicted": "r1"}\n')
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={jsonl}",
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*no recorded prediction*", "*translation failed for entry '2'*"])


@pytest.mark.parametrize("folder", ["identity", "replay", "dictionary"])
def test_shipped_method_modules_type_check_as_translation_methods(folder):
    from pytest_mteval.methods.protocol import TranslationMethod

    source = find_method(str(METHODS / folder), METHODS, {})
    assert isinstance(source.factory(RunConfig()), TranslationMethod)


@pytest.mark.parametrize("name", sorted(p.name for p in METHODS.iterdir() if p.is_dir()))
def test_shipped_methods_meet_the_submission_rules(name):
    """Each shipped method can be bundled for submission (spec §9.1): a README saying its
    approach and limits, its own licence, a licence for every dependency, and every bundled
    dependency present; a mirrored one (the Cree analyzer) is satisfied by the vendored file."""
    folder = METHODS / name
    manifest = load_manifest(folder / "method.json")
    shipped = file_sha256s([p for p in folder.rglob("*") if p.is_file()])
    shipped |= file_sha256s((CORPORA / "resources").rglob("*.hfstol"))
    assert method_problems(folder, manifest, shipped) == []
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "**Approach.**" in readme
    assert "**Limits.**" in readme
