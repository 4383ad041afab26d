"""Orthographic accuracy against the Plains Cree SRO character set shipped in crk.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.orthography import OrthographicAccuracy, build
from pytest_mteval.metrics.resources import ResourceError, load_resources

REPO = Path(__file__).resolve().parents[1]
CRK_JSON = REPO / "corpora" / "resources" / "crk" / "crk.json"
VOCAB = REPO / "corpora" / "eng-crk-morphodict-vocab.json"
FLORES = REPO / "corpora" / "eng-fra-flores-devtest.json"


def declared() -> set[str]:
    return set(json.loads(CRK_JSON.read_text(encoding="utf-8"))["orthography"]["characters"])


def by_hand(text: str) -> tuple[int, int]:
    """Letters and letters in the declared set, counted one code point at a time."""
    letters = [c.lower() for c in text if c.isalpha()]
    return len(letters), sum(c in declared() for c in letters)


@pytest.fixture
def metric() -> OrthographicAccuracy:
    built = build(MetricContext(corpus=load_corpus(VOCAB)))
    assert built is not None
    return built


@pytest.mark.parametrize(
    "text", ["Niwâpamâw atim.", "nikî-nipân", "ninipân, café 42!", "niwâpamâw the dog", "ᓂᐚᐸᒫᐤ"]
)
def test_entry_share_of_letters_in_the_declared_set(
    metric: OrthographicAccuracy, text: str
) -> None:
    entry = load_corpus(VOCAB).entries[0]
    letters, valid = by_hand(text)
    row = metric.score_entry(entry, text)
    assert (row["orthography_letters"], row["orthography_valid_letters"]) == (letters, valid)
    assert row["orthographic_accuracy"] == pytest.approx(valid / letters)


def test_foreign_letters_are_listed_and_combining_accents_count_once(
    metric: OrthographicAccuracy,
) -> None:
    entry = load_corpus(VOCAB).entries[0]
    assert metric.score_entry(entry, "café éé")["orthography_foreign_letters"] == ["f", "é"]
    assert metric.score_entry(entry, "nipa\u0302n")["orthographic_accuracy"] == 1.0
    assert metric.score_entry(entry, "42 ?")["orthographic_accuracy"] is None


def test_run_figure_pools_letters(metric: OrthographicAccuracy) -> None:
    records: list[dict[str, Any]] = [
        {"orthography_letters": 8, "orthography_valid_letters": 8},
        {"orthography_letters": 2, "orthography_valid_letters": 0},
        {"predicted": None},
    ]
    agg = metric.aggregate(records)
    assert agg == {"orthographic_accuracy": 0.8, "orthography": "Standard Roman Orthography"}


def test_undeclared_orthography_means_no_metric() -> None:
    assert build(MetricContext(corpus=load_corpus(FLORES))) is None


def test_resources_reject_a_wrong_analyzer_checksum_and_a_bad_character_set(tmp_path: Path) -> None:
    (tmp_path / "a.hfstol").write_bytes(b"not the analyzer")
    bad_sum = tmp_path / "sum.json"
    bad_sum.write_text(json.dumps({"language": "crk", "fst": "a.hfstol", "fst_sha256": "00"}))
    with pytest.raises(ResourceError, match="not the declared"):
        load_resources(bad_sum)
    bad_chars = tmp_path / "chars.json"
    bad_chars.write_text(json.dumps({"language": "x", "orthography": {"characters": 5}}))
    with pytest.raises(ResourceError, match="characters"):
        load_resources(bad_chars)
    listed = tmp_path / "listed.json"
    listed.write_text(
        json.dumps({"language": "x", "orthography": {"characters": ["a", "e\u0301"]}})
    )
    assert load_resources(listed).orthography is not None
    assert "É" in load_resources(listed).orthography.characters  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("source", "output", "counted"),
    [
        ("about Regina", "wayês Regina", "wayês"),  # the copied name counts neither way
        ("about Regina", "ABOUT", None),  # a copy, upper-cased: every letter foreign
        ("about Regina", "ab", None),  # a copy cut short
        ("back", "asê back", "asê"),
    ],
)
def test_text_copied_from_the_source_is_not_target_writing(
    metric: OrthographicAccuracy, source: str, output: str, counted: str | None
) -> None:
    entry = load_corpus(VOCAB).entries[0].model_copy(update={"source": source})
    row = metric.score_entry(entry, output)
    if counted is None:  # nothing but the source's words: all its letters count against it
        assert (row["orthography_letters"], row["orthography_valid_letters"]) == (
            by_hand(output)[0],
            0,
        )
        assert row["orthographic_accuracy"] == 0.0
    else:
        assert (row["orthography_letters"], row["orthography_valid_letters"]) == by_hand(counted)
