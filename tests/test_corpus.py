"""Corpus loading: both shapes, and one clear message for every kind of bad corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPORA, METHODS, envelope, flores_entries

from pytest_mteval.corpus import CorpusError, load_corpus

pytest_plugins = ["pytester"]

#: A real entry of the reference harness's Tatoeba corpus shape (eng-sme, CC-BY 2.0 FR).
HARNESS_SHAPE = {
    "corpus_id": "tatoeba-eng-sme-dev",
    "version": "0.1.0",
    "language_pair": {"source": "eng", "target": "sme"},
    "segment": "development",
    "created": "2026-06-05T10:56:56.037043+00:00",
    "entries": [
        {
            "id": "tatoeba_953265",
            "source": "Everything's going to be OK.",
            "reference": "Buot manná bures.",
            "domain": "conv",
            "difficulty": 1,
            "register": "conversational",
            "provenance": {"source_name": "tatoeba", "source_id": "953265"},
            "metadata": {"provenance": {"license": "CC-BY-2.0"}},
        }
    ],
}


def write(tmp_path: Path, data: object, name: str = "corpus.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_spec_envelope_loads_with_defaults_and_file_hash(tmp_path):
    path = write(tmp_path, envelope([{"id": 7, "source": "Hello", "reference": "Bonjour"}]))
    corpus = load_corpus(path)
    (entry,) = corpus.entries
    assert (entry.segment, entry.difficulty, entry.variants) == ("development", None, [])
    import hashlib

    assert corpus.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert corpus.shape == "spec"


def test_reference_harness_shape_is_mapped(tmp_path):
    corpus = load_corpus(write(tmp_path, HARNESS_SHAPE))
    assert corpus.shape == "harness"
    assert corpus.dataset.id == "tatoeba-eng-sme-dev"
    assert (corpus.dataset.source_language, corpus.dataset.target_language) == ("eng", "sme")
    assert corpus.dataset.license == "CC-BY-2.0"
    assert corpus.entries[0].provenance == "tatoeba"
    assert corpus.entries[0].key == "tatoeba_953265"
    assert any("corpus_id" in note for note in corpus.mapped_fields)


def test_an_entry_key_is_one_string_however_often_it_is_asked_for(tmp_path):
    """A number id's key is text made at each call: interned, the index, the ledger and the
    record of a 100 k-entry run share one string per entry instead of holding three."""
    entry = load_corpus(write(tmp_path, envelope(flores_entries(1)))).entries[0]
    assert isinstance(entry.id, int)
    assert entry.key == str(entry.id)
    assert entry.key is entry.key


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda e: e[1].pop("reference"), "entry 1 (id 2): field 'reference': required"),
        (lambda e: e[2].update(source=5), "entry 2 (id 3): field 'source'"),
        (lambda e: e[1].update(id=1), "entry 1 (id 1): field 'id': duplicate id"),
        (lambda e: e[0].update(domain="cooking"), "entry 0 (id 1): unknown domain 'cooking'"),
        (lambda e: e[2].update(difficulty=9), "entry 2 (id 3): field 'difficulty'"),
        (lambda e: e[0].update(segment="test"), "entry 0 (id 1): field 'segment'"),
    ],
)
def test_bad_entries_name_file_entry_and_field(tmp_path, mutate, expected):
    entries = flores_entries(3)
    mutate(entries)
    path = write(tmp_path, envelope(entries))
    with pytest.raises(CorpusError) as info:
        load_corpus(path)
    assert str(info.value).startswith(f"{path}: ")
    assert expected in str(info.value)


def test_invalid_json_names_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"dataset": {},\n "entries": [}', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"broken.json: invalid JSON at line 2, column"):
        load_corpus(path)


def test_bad_corpus_stops_the_run_with_one_message_and_no_traceback(pytester, tmp_path):
    entries = flores_entries(3)
    del entries[2]["source"]
    path = write(tmp_path, envelope(entries))
    result = pytester.runpytest(
        f"--mteval-corpus={path}", f"--mteval-method={METHODS / 'identity'}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert f"{path}: entry 2 (id 3): field 'source': required field is missing" in output
    assert "Traceback" not in output


@pytest.mark.parametrize("name", sorted(p.name for p in CORPORA.glob("*.json")))
def test_every_shipped_corpus_loads(name):
    corpus = load_corpus(CORPORA / name)
    assert corpus.entries


def test_entries_share_what_repeats_and_stay_independent(tmp_path):
    """Memory at 100 k entries: entries given the same fields share pydantic's set of given
    field names and their labels; a copy with an update must not leak into its neighbours."""
    raw = [
        {"id": 1, "source": "a", "reference": "b", "domain": "news"},
        {"id": 2, "source": "c", "reference": "d", "domain": "news"},
        {"id": 3, "source": "e", "reference": "f"},
    ]
    first, second, third = load_corpus(write(tmp_path, envelope(raw))).entries
    assert first.model_fields_set is second.model_fields_set
    assert third.model_fields_set == {"id", "source", "reference"}
    assert first.domain is second.domain
    changed = first.model_copy(update={"notes": "checked"})
    assert changed.model_fields_set == {"id", "source", "reference", "domain", "notes"}
    assert second.model_fields_set == {"id", "source", "reference", "domain"}
    assert second.model_dump(exclude_unset=True) == {
        "id": 2,
        "source": "c",
        "reference": "d",
        "domain": "news",
    }
