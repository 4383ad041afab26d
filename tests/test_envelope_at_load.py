"""The corpus envelope checked when a corpus is loaded (issue 42 item 6; benchmark spec §2.1):
a language name where a BCP 47 tag belongs, a date that is not ISO 8601 and a licence that is
not SPDX are refused by the loader, in one line naming the file and the field, with the words
``mteval corpus lint`` uses for the same finding. The shipped corpora and the test corpora
still load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mteval.corpus import CorpusError, load_corpus
from pytest_mteval.corpus_tools.lint import lint

REPO = Path(__file__).resolve().parents[1]
SNA = REPO / "corpora" / "eng-sna-tatoeba-dev.json"


def edited(tmp_path: Path, **fields: object) -> Path:
    """The real eng→sna corpus with envelope ``fields`` replaced."""
    document = json.loads(SNA.read_text(encoding="utf-8"))
    document["dataset"].update(fields)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("source_language", "English", "is not a BCP 47 language tag"),
        ("target_language", "Shona", "is not a BCP 47 language tag"),
        ("created", "May 2026", "is not an ISO 8601 date"),
        ("created", "05/01/2026", "is not an ISO 8601 date"),
        ("created", "2026-13", "is not an ISO 8601 date"),
        ("license", "free for research", "is not an SPDX identifier or expression"),
    ],
)
def test_the_loader_refuses_what_lint_finds_with_the_same_message(tmp_path, field, value, words):
    path = edited(tmp_path, **{field: value})
    with pytest.raises(CorpusError) as refused:
        load_corpus(path)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: dataset.{field} {value!r} {words}")
    found = [f.message for f in lint(path).errors if f.message.startswith(f"dataset.{field}")]
    assert found == [message.removeprefix(f"{path}: ")]


def test_every_problem_is_named_at_once(tmp_path):
    path = edited(tmp_path, source_language="English", license="my own")
    with pytest.raises(
        CorpusError, match=r"source_language 'English'.*; dataset\.license 'my own'"
    ):
        load_corpus(path)


def test_a_pytest_run_on_such_a_corpus_ends_in_that_line(pytester, tmp_path):
    path = edited(tmp_path, source_language="English")
    result = pytester.runpytest(f"--mteval-corpus={path}", "--mteval-method=identity")
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    assert "dataset.source_language 'English' is not a BCP 47 language tag" in text
    assert "Traceback" not in text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("source_language", "eng"),  # ISO 639-3, as the reference harness writes
        ("target_language", "crk-Cans"),  # a script subtag
        ("created", "2026-06-05T10:56:56.037043+00:00"),  # a date and time
        ("created", "2026"),  # ISO 8601's reduced precision: a year
        ("created", "2026-05"),  # a month
        ("license", "CC-BY-4.0 OR MIT"),  # an expression
        ("license", "LicenseRef-CC-BY-2.0-FR"),  # a licence SPDX does not list
    ],
)
def test_well_formed_envelopes_still_load(tmp_path, field, value):
    assert load_corpus(edited(tmp_path, **{field: value})).dataset.model_dump()[field] == value


def test_the_shipped_and_test_corpora_still_load():
    paths = [
        *sorted((REPO / "corpora").glob("*.json")),
        *sorted((REPO / "tests" / "data" / "converter-excerpts").rglob("*.json")),
        *sorted((REPO / "tests" / "data" / "reference-harness" / "corpora").glob("*.json")),
        REPO / "tests" / "data" / "corpus-tools" / "eng-yor-harness-12.json",
    ]
    assert len(paths) >= 10
    for path in paths:
        assert load_corpus(path).entries, path
