"""A large card is hashed, checked and written in pieces (issue 8's memory target): the pieces
must give exactly the documented hash, the documented file and the same first error as the
whole card at once. Cards here have more rows than one validation block, so every piece-wise
path runs; expected values are recomputed with json and hashlib directly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_card_sealing import _card, _documented_hash

from pytest_mteval.cards import runcard
from pytest_mteval.cards.runcard import RunCardError

ROWS = 2 * runcard._ROWS_AT_ONCE + 7


def _large_card() -> dict[str, Any]:
    row = _card()["results"][1]
    rows = [
        {
            **row,
            "entry_id": f"e{i}",
            "predicted": f"mîna {i} “ok” \u2019",
            "chrf_score": i / 7,
            "plugin_metrics": {"zeta": {"b": i, "a": None}, "alpha": {}},
        }
        for i in range(ROWS)
    ]
    return _card(results=rows, gate={"passed": True, "notes": ["é"]})


def test_a_large_card_has_the_documented_hash_and_its_file_is_that_card(tmp_path: Path) -> None:
    card = runcard.seal(_large_card())
    assert card["run_card_hash"] == _documented_hash(card)
    path = runcard.write_new(card, tmp_path / "card.json")
    data = path.read_bytes()
    assert json.loads(data) == card
    assert _documented_hash(json.loads(data)) == card["run_card_hash"]
    lines = data.decode("utf-8").splitlines()
    assert sum(line.startswith('    {"entry_id"') for line in lines) == ROWS
    assert [p.name for p in tmp_path.iterdir()] == ["card.json"]


def test_a_card_with_keys_that_are_not_text_fails_as_json_dumps_does() -> None:
    card = {**_card(), 2: "two"}
    with pytest.raises(TypeError):
        _documented_hash(card)
    with pytest.raises(TypeError):
        runcard.card_hash(card)


def test_a_bad_row_beyond_the_first_block_is_named_as_the_whole_card_names_it() -> None:
    card = _large_card()
    card["results"][ROWS - 3]["chrf_score"] = "high"
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(card)
    assert f"field 'results.{ROWS - 3}.chrf_score'" in str(error.value)
    card["elapsed_seconds"] = "slow"  # declared before results: the first error
    with pytest.raises(RunCardError, match="field 'elapsed_seconds'"):
        runcard.check_before_sealing(card)
    card = _large_card()
    card["gate"] = {"passed": "yes"}  # declared after results: only error
    with pytest.raises(RunCardError, match=r"field 'gate\.passed'"):
        runcard.check_before_sealing(card)
    runcard.check_before_sealing(_large_card())


def test_a_row_that_cannot_be_written_leaves_no_file(tmp_path: Path) -> None:
    card = runcard.seal(_large_card())
    card["results"][ROWS - 1]["chrf_score"] = float("nan")
    with pytest.raises(ValueError, match="Out of range float"):
        runcard.write_new(card, tmp_path / "card.json")
    assert list(tmp_path.iterdir()) == []
