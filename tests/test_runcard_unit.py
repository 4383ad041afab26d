"""``cards.runcard`` at the unit level: what test_card_sealing.py and test_card_streaming.py
leave open (where a card stops being JSON, the canonical pieces, the one-line refusals before
sealing, validation block boundaries). Expected encodings are recomputed here with json, as
the module documents them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from test_card_sealing import _card

from pytest_mteval.cards import runcard
from pytest_mteval.cards.runcard import RunCardError


def test_not_json_names_the_first_place_json_cannot_encode():
    assert runcard.not_json({"a": [1, "x", None, 2.5, True, {"b": -0.0}]}) is None
    assert runcard.not_json({"a": {"b": [1, {2}]}}) == "a.b.1"
    assert runcard.not_json({"a": [math.nan]}) == "a.0"
    assert runcard.not_json({"ok": 1, "a": [1.0, math.inf]}) == "a.1"
    assert runcard.not_json({"a": {3: 1}}) == "a (a key of type int)"
    assert runcard.not_json({1: 1}) == "the card (a key of type int)"
    assert runcard.not_json([0, [1, object()]]) == ".1.1"
    assert runcard.not_json({"t": (1, 2)}) == "t"
    assert runcard.not_json({"a": {"b": None}, "c": [None, {"d": b"x"}]}) == "c.1.d"
    assert runcard.not_json(-math.inf, "x") == "x"
    assert runcard.not_json(object()) == ""


def _documented(card: dict[str, Any]) -> str:
    return json.dumps(card, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize(
    "results",
    [
        [],
        None,
        "not rows",
        [{"b": 1, "a": "é"}],
        [{"b": 1, "a": "é"}, {"z": [3, {"y": 1, "x": 2}]}, {}],
    ],
)
def test_the_canonical_pieces_join_to_the_documented_encoding(results):
    card = {"zeta": {"b": 1, "a": 2}, "results": results, "alpha": "nêhiyawêwin", "m": [1.5, None]}
    pieces = list(runcard.canonical_chunks(card))
    assert "".join(pieces) == _documented(card)
    if isinstance(results, list) and len(results) > 1:
        # one piece per result row, never the whole list at once
        assert pieces.count(json.dumps(results[0], sort_keys=True, ensure_ascii=False)) == 1
        assert ", " + json.dumps(results[1], sort_keys=True, ensure_ascii=False) in pieces


def test_a_card_whose_keys_are_not_all_text_is_one_piece():
    card = {2: "two", 1: "one"}
    assert list(runcard.canonical_chunks(card)) == [_documented(card)]


def test_the_hash_is_sha256_of_the_documented_encoding_of_the_unsealed_card():
    import hashlib

    card = {"results": [{"b": "ê"}], "run_card_hash": "old", "signature": {"v": 1}, "a": 1}
    unsealed = {"results": [{"b": "ê"}], "run_card_hash": "", "a": 1}
    expected = hashlib.sha256(_documented(unsealed).encode("utf-8")).hexdigest()
    assert runcard.card_hash(card) == expected
    assert card["run_card_hash"] == "old"
    assert "signature" in card


def test_a_card_missing_a_fingerprint_component_is_refused_before_sealing():
    card = _card()
    del card["condition"]
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(card)
    assert str(error.value) == "run card refused: fingerprint component missing: 'condition'"
    broken = _card(dataset=None)
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(broken)
    assert str(error.value).startswith("run card refused: fingerprint component missing: ")
    unhashable = _card(tools_enabled=[1, "a"])  # sorting mixed types fails
    with pytest.raises(RunCardError, match=r"^run card refused: fingerprint component missing: "):
        runcard.check_before_sealing(unhashable)


def test_a_wrong_type_is_refused_strictly_with_the_field_and_what_was_given():
    runcard.check_before_sealing(_card())
    for field, value, got in [
        ("elapsed_seconds", "1.5", "str"),  # a number as text is not converted
        ("batch_size", True, "bool"),
    ]:
        with pytest.raises(RunCardError) as error:
            runcard.check_before_sealing(_card(**{field: value}))
        message = str(error.value)
        assert message.startswith(f"run card refused: field '{field}': ")
        assert message.endswith(f" (got {got})")
    nested = _card()
    nested["results"][1]["chrf_score"] = "61"
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(nested)
    assert str(error.value).startswith("run card refused: field 'results.1.chrf_score': ")


def test_check_before_sealing_leaves_the_card_unsealed():
    card = _card()
    runcard.check_before_sealing(card)
    assert card["fingerprint"] == ""
    assert card["run_card_hash"] == ""


def _rows(count: int) -> list[dict[str, Any]]:
    row = _card()["results"][0]
    return [{**row, "entry_id": f"e{i}"} for i in range(count)]


@pytest.mark.parametrize("count", [runcard._ROWS_AT_ONCE, runcard._ROWS_AT_ONCE + 1])
@pytest.mark.parametrize("bad", ["first", "last"])
def test_every_row_is_checked_at_a_block_boundary(count, bad):
    assert runcard._ROWS_AT_ONCE == 2000
    rows = _rows(count)
    index = 0 if bad == "first" else count - 1
    rows[index]["bleu_score"] = "high"
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(_card(results=rows))
    assert f"field 'results.{index}.bleu_score'" in str(error.value)
    runcard.check_before_sealing(_card(results=_rows(count)))


def test_a_card_whose_results_are_not_a_list_is_refused_by_the_whole_schema():
    with pytest.raises(RunCardError, match=r"^run card refused: field 'results': "):
        runcard.check_before_sealing(_card(results={"e1": {}}))


def test_a_card_is_written_into_a_folder_made_for_it(tmp_path: Path):
    path = tmp_path / "a" / "b" / "run.json"
    card = runcard.seal(_card())
    assert runcard.write_new(card, path) == path
    assert path.read_bytes() == runcard.render(card)
    assert [p.name for p in path.parent.iterdir()] == ["run.json"]
    target = tmp_path / "c" / "d" / "base.json"
    runcard.replace(card, target)
    assert target.read_bytes() == runcard.render(card)


def test_the_schema_is_the_run_card_models():
    schema = runcard.json_schema()
    assert schema["title"] == "RunCard"
    assert {"run_card_hash", "fingerprint", "results", "scores"} <= set(schema["properties"])


def test_a_card_whose_results_are_null_is_refused_in_one_line():
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(_card(results=None))
    assert str(error.value) == (
        "run card refused: field 'results': Input should be a valid list (got NoneType)"
    )


def test_a_number_as_text_in_a_later_block_is_refused_where_the_whole_card_names_it():
    rows = _rows(runcard._ROWS_AT_ONCE + 5)
    rows[runcard._ROWS_AT_ONCE + 1]["chrf_score"] = "61.0"  # converted if not strict
    with pytest.raises(RunCardError) as error:
        runcard.check_before_sealing(_card(results=rows))
    assert str(error.value) == (
        f"run card refused: field 'results.{runcard._ROWS_AT_ONCE + 1}.chrf_score': "
        "Input should be a valid number (got str)"
    )


def test_load_names_a_missing_card_in_one_line(tmp_path: Path):
    path = tmp_path / "gone.json"
    with pytest.raises(RunCardError) as error:
        runcard.load(path)
    assert str(error.value) == f"{path}: cannot read run card: No such file or directory"


class _Watched(dict):  # type: ignore[type-arg]
    """A card that looks into its folder while it is being written (between two keys)."""

    def __init__(self, card: dict[str, Any], folder: Path) -> None:
        super().__init__(card)
        self.folder = folder
        self.seen: list[list[str]] = []

    def items(self):  # type: ignore[no-untyped-def,override]
        for key, value in super().items():
            self.seen.append(sorted(p.name for p in self.folder.iterdir()))
            yield key, value


def test_a_card_being_written_is_a_hidden_temporary_file_beside_it(tmp_path: Path, monkeypatch):
    import tempfile

    # the system's temporary folder is not used: linking into place must not cross devices
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "old.json").write_text("{}", encoding="utf-8")
    card = _Watched(runcard.seal(_card()), folder)
    assert runcard.write_new(card, folder / "run.json") == folder / "run.json"
    during = card.seen[-1]
    assert len(during) == 2
    temporary = next(name for name in during if name != "old.json")
    assert temporary.startswith(".runcard-")
    assert temporary.endswith(".tmp")
    assert sorted(p.name for p in folder.iterdir()) == ["old.json", "run.json"]
    card.seen.clear()
    runcard.replace(card, folder / "old.json")
    (temporary,) = [name for name in card.seen[-1] if name not in {"old.json", "run.json"}]
    assert temporary.startswith(".runcard-")
    assert temporary.endswith(".tmp")
    assert sorted(p.name for p in folder.iterdir()) == ["old.json", "run.json"]


def test_reading_a_card_gives_the_model_with_the_cards_own_rows(tmp_path: Path):
    """``read`` verifies and returns the model: every field typed as the card holds it, the
    rows the card's own dicts (keys beyond the schema kept, never a validated copy)."""
    rows = [{**row, "text_withheld": True} for row in _card()["results"]]
    path = runcard.write_new(runcard.seal(_card(results=rows, extra_key={"a": 1})), tmp_path / "c")
    raw = runcard.load(path)
    card = runcard.read(path)
    assert isinstance(card, runcard.RunCard)
    assert card.results == raw["results"]
    assert all(row["text_withheld"] is True for row in card.results)
    assert (card.dataset.sha256, card.scores.chrf_plus_plus) == ("a" * 64, 61.0)
    assert (card.run_card_hash, card.fingerprint) == (raw["run_card_hash"], raw["fingerprint"])
    assert card.extra("extra_key") == {"a": 1}
    assert card.extra("absent") is None
    verified = runcard.verify(raw, path)
    assert verified.results is raw["results"]  # the same rows: a 100,000-row card is not copied


@pytest.mark.parametrize("count", [2, runcard._ROWS_AT_ONCE + 1])
def test_a_card_being_built_is_checked_as_before_sealing_but_for_its_rows(count):
    card = _card(results=_rows(count))
    model = runcard.built(card)
    assert model.results is card["results"]
    assert model.fingerprint == runcard.fingerprint(card)
    assert card["fingerprint"] == ""  # the card itself is left as it was
    bad_row = _card(results=[{**_rows(1)[0], "bleu_score": "high"}])
    assert runcard.built(bad_row).results == bad_row["results"]  # rows are checked when sealed
    bad_head = _card(temperature="0")
    with pytest.raises(RunCardError) as built_error:
        runcard.built(bad_head)
    with pytest.raises(RunCardError) as sealing_error:
        runcard.check_before_sealing(bad_head)
    assert str(built_error.value) == str(sealing_error.value)
    assert str(built_error.value).startswith("run card refused: field 'temperature': ")
