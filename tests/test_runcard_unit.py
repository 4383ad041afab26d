"""``cards.runcard`` at the unit level: what test_card_sealing.py and test_card_streaming.py
leave open (where a card stops being JSON, the canonical pieces, the one-line refusals).
Expected encodings are recomputed here with json and hashlib, as the module documents them."""

from __future__ import annotations

import math

from pytest_mteval.cards import runcard


def test_not_json_names_the_first_place_json_cannot_encode():
    assert runcard.not_json({"a": [1, "x", None, 2.5, True]}) is None
    assert runcard.not_json({"a": {"b": [1, {2}]}}) == "a.b.1"
    assert runcard.not_json({"a": [math.nan]}) == "a.0"
    assert runcard.not_json({"a": {3: 1}}) == "a (a key of type int)"
    assert runcard.not_json({1: 1}) == "the card (a key of type int)"
