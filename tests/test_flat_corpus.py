"""The reference harness's flat corpora (a JSON list, ``target`` for the reference) and renamed
source/reference fields: loaded by pytest runs and by ``mteval corpus import``, from its own
``examples/basic_run/sample_corpus.json`` (tests/data/reference-harness/SOURCE.md)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, METHODS

from pytest_mteval.corpus import CorpusError, FieldNames, load_corpus

SAMPLE = DATA / "reference-harness" / "corpora" / "sample_corpus.json"
RAW = json.loads(SAMPLE.read_text(encoding="utf-8"))


def test_a_flat_list_loads_target_as_reference() -> None:
    corpus = load_corpus(SAMPLE)
    assert corpus.shape == "flat"
    assert [e.id for e in corpus.entries] == [e["id"] for e in RAW]
    assert [e.source for e in corpus.entries] == [e["source"] for e in RAW]
    assert [e.reference for e in corpus.entries] == [e["target"] for e in RAW]
    assert [e.difficulty for e in corpus.entries] == [e["difficulty"] for e in RAW]
    # the harness's own segment names are kept, the entries are development entries
    assert [e.metadata["harness_segment"] for e in corpus.entries] == [e["segment"] for e in RAW]
    assert {e.segment for e in corpus.entries} == {"development"}
    assert corpus.sha256 == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert corpus.dataset.id == "sample_corpus"
    assert corpus.dataset.target_language == "und"
    assert "entries[].target -> entries[].reference" in corpus.mapped_fields


def renamed_copy(tmp_path: Path) -> Path:
    """The sample corpus with its fields named as a user's own export names them."""
    rows = [{"n": e["id"], "en": e["source"], "es": e["target"]} for e in RAW]
    rows = [{"id": r.pop("n"), **r} for r in rows]
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


def test_fields_are_renamed_and_a_missing_one_is_named(tmp_path: Path) -> None:
    path = renamed_copy(tmp_path)
    corpus = load_corpus(path, FieldNames("en", "es"))
    assert [e.reference for e in corpus.entries] == [e["target"] for e in RAW]
    assert "entries[].en -> entries[].source" in corpus.mapped_fields
    with pytest.raises(CorpusError, match=r"renamed.json: entry 0 \(id 0\): field 'source'"):
        load_corpus(path)


def card_of(pytester: pytest.Pytester) -> dict:
    (card,) = (pytester.path / ".mteval" / "runs").glob("*.json")
    return json.loads(card.read_text(encoding="utf-8"))


def test_a_session_evaluates_the_flat_corpus(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--mteval-corpus={SAMPLE}", f"--mteval-method={METHODS / 'identity'}"
    )
    result.assert_outcomes(passed=5)
    card = card_of(pytester)
    assert card["dataset"]["shape"] == "flat"
    assert "entries[].target -> entries[].reference" in card["dataset"]["mapped_fields"]
    assert [r["expected"] for r in card["results"]] == [e["target"] for e in RAW]


def test_field_options_and_ini_keys_rename(pytester: pytest.Pytester, tmp_path: Path) -> None:
    path = renamed_copy(tmp_path)
    method = f"--mteval-method={METHODS / 'identity'}"
    refused = pytester.runpytest(f"--mteval-corpus={path}", method)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "field 'source': required field is missing" in refused.stderr.str()
    by_option = pytester.runpytest(
        f"--mteval-corpus={path}", method, "--mteval-source-field=en", "--mteval-reference-field=es"
    )
    by_option.assert_outcomes(passed=5)
    assert [r["expected"] for r in card_of(pytester)["results"]] == [e["target"] for e in RAW]
    pytester.makeini("[pytest]\nmteval_source_field = en\nmteval_reference_field = es\n")
    for card in (pytester.path / ".mteval" / "runs").glob("*.json"):
        card.unlink()
    by_ini = pytester.runpytest(f"--mteval-corpus={path}", method)
    by_ini.assert_outcomes(passed=5)
    assert "entries[].es -> entries[].reference" in card_of(pytester)["dataset"]["mapped_fields"]


def mteval(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_corpus_import_reads_a_flat_list(tmp_path: Path) -> None:
    out = tmp_path / "spec.json"
    envelope = ["--source-language=en", "--target-language=es", "--license=Apache-2.0"]
    asked = mteval("corpus", "import", SAMPLE, "-o", out)
    assert asked.returncode == 2
    assert f"{SAMPLE}: the envelope needs 'source_language'" in asked.stdout
    done = mteval("corpus", "import", SAMPLE, "-o", out, *envelope)
    assert done.returncode == 0, done.stdout
    corpus = load_corpus(out)
    assert corpus.shape == "spec"
    assert [e.reference for e in corpus.entries] == [e["target"] for e in RAW]
    assert [e.metadata["harness_segment"] for e in corpus.entries] == [e["segment"] for e in RAW]
    assert corpus.dataset.id == "sample_corpus"
    renamed = tmp_path / "renamed-spec.json"
    columns = ["--source-column=en", "--reference-column=es"]
    again = mteval("corpus", "import", renamed_copy(tmp_path), "-o", renamed, *envelope, *columns)
    assert again.returncode == 0, again.stdout
    assert [e.reference for e in load_corpus(renamed).entries] == [e["target"] for e in RAW]
