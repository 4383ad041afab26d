"""Hostile files: each problem is one MtevalError line naming the file, the entry and the
field; nothing else escapes (no RecursionError, ValueError, MemoryError, AttributeError)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import envelope, flores_entries

from pytest_mteval.cards.baseline import BaselineError, read_run
from pytest_mteval.cards.runcard import RunCardError, load
from pytest_mteval.corpus import CorpusError, load_corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import MAX_JSON_DEPTH
from pytest_mteval.llm.pricing import PriceError, load_prices
from pytest_mteval.metrics.resources import ResourceError, corpus_resources
from pytest_mteval.output_paths import check_output_path


def write(folder: Path, text: str, name: str = "corpus.json") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def corpus_with(folder: Path, **changes: object) -> Path:
    entries = flores_entries(2)
    entries[1].update(changes)
    return write(folder, json.dumps(envelope(entries)))


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"source": ""}, "entry 1 (id 2): field 'source': Value error, empty or only whitespace"),
        ({"reference": " \t\n"}, "entry 1 (id 2): field 'reference'"),
        ({"source": 5}, "entry 1 (id 2): field 'source': Input should be a valid string"),
        ({"metadata": "text"}, "entry 1 (id 2): field 'metadata'"),
        ({"difficulty": 10**30}, "entry 1 (id 2): field 'difficulty'"),
        ({"terms": {"a": 1}}, "entry 1 (id 2): field 'terms.a'"),
    ],
)
def test_a_bad_entry_field_is_named(tmp_path: Path, changes: dict, words: str) -> None:
    path = corpus_with(tmp_path, **changes)
    with pytest.raises(CorpusError) as raised:
        load_corpus(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert words.replace("Value error, ", "") in str(raised.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, f"nested deeper than {MAX_JSON_DEPTH} levels"),
        ('{"entries": [' + "7" * 5000 + "]}", "a number longer than 40 digits"),
        ('{"entries": [NaN]}', "NaN is not a JSON number"),
        ('{"dataset": "\\ud800", "entries": []}', "dataset is not valid Unicode"),
    ],
)
def test_hostile_json_is_one_line_for_every_reader(tmp_path: Path, text: str, words: str) -> None:
    path = write(tmp_path, text)
    readers = [
        (load_corpus, CorpusError),
        (load, RunCardError),
        (read_run, BaselineError),
        (load_prices, PriceError),
    ]
    for reader, error in readers:
        with pytest.raises(error) as raised:
            reader(path)
        message = str(raised.value)
        assert words in message, reader
        assert "\n" not in message
        assert isinstance(raised.value, MtevalError)


def test_a_device_is_not_read_as_a_corpus(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="must be a regular file"):
        load_corpus(Path("/dev/zero"))


@pytest.mark.parametrize(
    ("resources", "words"),
    [
        ("/dev/zero", "is outside the corpus's folder"),
        ("../elsewhere.json", "is outside the corpus's folder"),
        ("sub", "must be a regular file"),
    ],
)
def test_language_resources_stay_in_the_corpus_folder(
    tmp_path: Path, resources: str, words: str
) -> None:
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere.json").write_text('{"language": "fra"}', encoding="utf-8")
    path = write(folder, json.dumps(envelope(flores_entries(1), language_resources=resources)))
    with pytest.raises(ResourceError) as raised:
        corpus_resources(load_corpus(path))
    assert words in str(raised.value)


def test_an_analyzer_outside_the_resources_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    write(folder, json.dumps({"language": "fra", "fst": "/etc/passwd"}), "res.json")
    path = write(folder, json.dumps(envelope(flores_entries(1), language_resources="res.json")))
    with pytest.raises(ResourceError, match="field 'fst': /etc/passwd is outside"):
        corpus_resources(load_corpus(path))


def test_harness_shape_with_wrong_types_inside_is_one_line(tmp_path: Path) -> None:
    """The property test's first find: a string ``metadata`` beside a ``provenance`` object."""
    corpus = {
        "corpus_id": "c",
        "language_pair": {"source": "eng", "target": "fra"},
        "version": "1",
        "created": "2026",
        "entries": [{"id": 1, "source": "a", "reference": "b", "provenance": {}, "metadata": "m"}],
    }
    path = write(tmp_path, json.dumps(corpus))
    with pytest.raises(CorpusError, match="entry 0 \\(id 1\\): field 'metadata'"):
        load_corpus(path)


@pytest.mark.parametrize(
    ("name", "words"),
    [("/dev/null", "not a regular file"), (".", "a folder"), ("f/card.json", "is not a folder")],
)
def test_output_paths_must_be_files_in_folders(tmp_path: Path, name: str, words: str) -> None:
    (tmp_path / "f").write_text("", encoding="utf-8")
    problem = check_output_path(tmp_path / name, "--mteval-run-card")
    assert problem is not None
    assert words in problem
    assert check_output_path(tmp_path / "new" / "card.json", "--mteval-run-card") is None
