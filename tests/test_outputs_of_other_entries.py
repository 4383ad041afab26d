"""Another entry's reference given as an output (metrics/outputs_of_other_entries.py), found
through the index of the references' words, whose words in more than MAX_DOCUMENT_FREQUENCY
references point nowhere. Texts: FLORES-200 devtest references (human translations)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.metrics.outputs_of_other_entries import (
    MAX_DOCUMENT_FREQUENCY,
    fits_other_reference,
)

FLORES = Path(__file__).resolve().parents[1] / "corpora" / "eng-fra-flores-devtest.json"


def _flores() -> list[dict[str, Any]]:
    return list(json.loads(FLORES.read_text(encoding="utf-8"))["entries"])


def _records(copies: int) -> list[dict[str, Any]]:
    """Entry "own" answered with the reference that ``copies`` other entries share."""
    own, other = _flores()[:2]
    records = [
        {
            "entry_id": "own",
            "source": own["source"],
            "expected": own["reference"],
            "predicted": other["reference"],
        }
    ]
    for n in range(copies):
        records.append(
            {
                "entry_id": f"other-{n}",
                "source": other["source"],
                "expected": other["reference"],
                "predicted": other["reference"],
            }
        )
    return records


def test_an_output_that_is_another_entrys_reference_is_found_among_many() -> None:
    entries = _flores()
    records = [
        {"entry_id": str(e["id"]), "source": e["source"], "expected": e["reference"]}
        for e in entries
    ]
    for record in records:
        record["predicted"] = record["expected"]
    records[0]["predicted"] = entries[500]["reference"]
    assert fits_other_reference(records) == {str(entries[0]["id"]): str(entries[500]["id"])}


@pytest.mark.parametrize(
    ("copies", "found"),
    [(MAX_DOCUMENT_FREQUENCY, True), (MAX_DOCUMENT_FREQUENCY + 1, False)],
)
def test_words_of_more_references_than_the_limit_point_nowhere(copies: int, found: bool) -> None:
    expected = {"own": "other-0"} if found else {}
    assert fits_other_reference(_records(copies)) == expected
