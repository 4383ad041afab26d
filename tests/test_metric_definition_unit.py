"""``metrics.definition``: how every run-level score is computed from per-entry statistics.

Small rows built here, expected tables and scores worked out by hand (``Fraction``) or with
sacrebleu's own corpus scoring; test_metric_catalog.py checks the registered definitions on a
real card and on random counts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from pytest_mteval.metrics import catalog, fst, hallucination, orthography
from pytest_mteval.metrics.definition import (
    FlaggedShare,
    MeanOfScored,
    MetricDefinition,
    RatioOfCounts,
    SacreFamily,
    ShareOfAll,
    family_stats,
    field_value,
    ratio,
)

PAIRS = [
    ("le chat est sur le tapis", "le chat est assis sur le tapis"),
    ("il pleut", "il pleut fort"),
    ("bonjour", "bonsoir"),
]


def test_a_dotted_field_reaches_into_nested_objects():
    row = {
        "a": 1,
        "plugin_metrics": {"x": {"hits": 3}},
        "odd.name": 5,
        "flat": {"deep": 2},
    }
    assert field_value(row, "a") == 1
    assert field_value(row, "missing") is None
    assert field_value(row, "plugin_metrics.x.hits") == 3
    assert field_value(row, "odd.name") == 5  # a key holding a dot is the row's own field first
    assert field_value(row, "plugin_metrics.y.hits") is None
    assert field_value(row, "flat.deep.deeper") is None  # 2 is no mapping
    assert field_value({"plugin_metrics": None}, "plugin_metrics.x") is None


def test_a_ratio_is_none_when_nothing_was_counted():
    assert ratio([3.0, 4.0]) == 0.75
    assert ratio([0.0, 0.0]) is None
    assert ratio([2.0, 0.0]) is None
    assert type(ratio([1, 2])) is float


def _stats(family: str, hyp: str, ref: str) -> list[float]:
    metric = {"chrf": CHRF(word_order=2), "bleu": BLEU(), "ter": TER()}[family]
    (row,) = metric._extract_corpus_statistics([hyp], [[ref]])
    return [float(x) for x in row]


@pytest.mark.parametrize("family", ["chrf", "bleu", "ter"])
def test_sacrebleu_families_read_and_finalise_as_sacrebleus_corpus_score(family):
    definition = SacreFamily(family)
    rows: list[dict[str, Any]] = [
        {"entry_id": str(i), "predicted": hyp, "expected": ref, "error": None}
        for i, (hyp, ref) in enumerate(PAIRS)
    ]
    table = definition.read(rows, frozenset())
    assert table is not None
    expected_rows = [_stats(family, hyp, ref) for hyp, ref in PAIRS]
    assert table.tolist() == expected_rows
    metric = {"chrf": CHRF(word_order=2), "bleu": BLEU(), "ter": TER()}[family]
    expected = metric.corpus_score([h for h, _ in PAIRS], [[r for _, r in PAIRS]]).score
    assert definition.finalize(table.sum(axis=0).tolist()) == pytest.approx(expected)
    assert definition.read([], frozenset()) is None


def test_a_rows_own_statistics_are_used_and_an_errored_entry_is_an_empty_translation():
    own = {"chrf": [9.0] * len(_stats("chrf", "x", "y"))}
    rows = [
        {"entry_id": "1", "predicted": "x", "expected": "y", "stats": own},
        {"entry_id": "2", "predicted": "il pleut", "expected": "il pleut", "error": "boom"},
        {"entry_id": "3", "predicted": None, "expected": "il pleut"},
        {"entry_id": "4", "predicted": "bonjour", "expected": "bonjour", "stats": {"bleu": [1]}},
    ]
    table = SacreFamily("chrf").read(rows, frozenset())
    assert table is not None
    empty = _stats("chrf", "", "il pleut")
    assert table.tolist() == [own["chrf"], empty, empty, _stats("chrf", "bonjour", "bonjour")]
    assert family_stats(rows[0], "chrf") == own["chrf"]
    assert family_stats(rows[1], "chrf") == empty
    assert "stats" not in rows[1]  # left as it is
    assert family_stats({"predicted": "a", "expected": None}, "bleu") == _stats("bleu", "a", "None")
    assert family_stats({"predicted": "oui", "expected": "oui", "stats": None}, "ter") == _stats(
        "ter", "oui", "oui"
    )


def test_a_share_of_all_counts_entries_without_the_field_as_misses():
    rows = [{"exact_match": True}, {"exact_match": False}, {}, {"exact_match": 1}]
    share = ShareOfAll("exact_match")
    table = share.read(rows, frozenset())
    assert table is not None
    assert table.tolist() == [[1.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]]
    assert share.finalize([2.0, 4.0]) == 0.5
    assert share.finalize([0.0, 0.0]) is None
    assert share.read([], frozenset()) is None


def test_a_mean_counts_only_the_entries_that_have_a_value():
    mean = MeanOfScored("m.v")
    rows = [{"m": {"v": 0.25}}, {"m": {}}, {"m": {"v": True}}, {"m": {"v": 0}}]
    table = mean.read(rows, frozenset())
    assert table is not None
    assert table.tolist() == [[0.25, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    assert mean.finalize([1.25, 3.0]) == pytest.approx(1.25 / 3)
    assert mean.finalize([0.0, 0.0]) is None
    assert mean.read([{"m": {}}, {}], frozenset()) is None


def test_a_ratio_of_counts_reads_missing_parts_and_wholes_as_zero():
    counts = RatioOfCounts("ok", "all")
    rows = [{"ok": 3, "all": 4}, {"all": 2}, {"ok": 1}, {"ok": None, "all": None}]
    table = counts.read(rows, frozenset())
    assert table is not None
    assert table.tolist() == [[3.0, 4.0], [0.0, 2.0], [1.0, 0.0], [0.0, 0.0]]
    assert counts.finalize([4.0, 6.0]) == pytest.approx(4 / 6)
    assert counts.finalize([1.0, 0.0]) is None
    assert counts.read([{"ok": 3}], frozenset()) is None


def test_a_flagged_share_counts_own_flags_and_findings_across_entries_over_checked_entries():
    share = FlaggedShare("flag")
    rows = [
        {"entry_id": "a", "flag": True},
        {"entry_id": "b", "flag": False},
        {"entry_id": 7, "flag": False},  # named by a finding across entries, as text
        {"entry_id": "d"},  # never checked (errored): not counted
        {"entry_id": "e", "flag": False},
    ]
    table = share.read(rows, frozenset({"7", "d"}))
    assert table is not None
    assert table.tolist() == [[1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 1.0]]
    assert share.finalize([2.0, 4.0]) == 0.5
    assert share.finalize([0.0, 0.0]) is None
    assert share.read([{"entry_id": "x"}], frozenset({"x"})) is None
    unflagged = share.read(rows, frozenset())
    assert unflagged is not None
    assert unflagged[:, 0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_a_definitions_defaults_and_what_it_delegates():
    definition = MetricDefinition("share", "a share", ShareOfAll("ok"))
    assert (definition.scale, definition.higher_is_better, definition.interval) == (
        1.0,
        True,
        False,
    )
    rows = [{"ok": True}, {"ok": False}, {"ok": True}]
    assert definition.table(rows).tolist() == [[1.0, 1.0], [0.0, 1.0], [1.0, 1.0]]
    assert definition.finalize([1.0, 4.0]) == 0.25
    assert definition.score(rows) == pytest.approx(2 / 3)
    assert definition.score([]) is None
    flagged = MetricDefinition("h", "h", FlaggedShare("flag"), higher_is_better=False)
    checked = [{"entry_id": "1", "flag": False}, {"entry_id": "2", "flag": False}]
    assert flagged.table(checked, frozenset({"2"})).tolist() == [[0.0, 1.0], [1.0, 1.0]]
    assert flagged.score(checked, frozenset({"2"})) == 0.5
    assert flagged.score(checked) == 0.0


def test_a_score_of_non_integer_values_is_exact_whatever_the_order():
    definition = MetricDefinition("mean", "mean", MeanOfScored("v"))
    rows = [{"v": 1e16}, {"v": 1.0}, {"v": -1e16}, {"v": 0.5}]
    expected = float(Fraction(3, 2) / 4)  # math.fsum: 1e16 + 1 - 1e16 + 0.5 = 1.5
    assert definition.score(rows) == expected
    assert definition.score(rows[::-1]) == expected
    assert math.fsum(r["v"] for r in rows) / 4 == expected


def test_a_score_of_counts_sums_them_exactly():
    definition = MetricDefinition("r", "r", RatioOfCounts("p", "w"))
    rows = [{"p": 2**52, "w": 2**53}, {"p": 1, "w": 1}, {"p": 3, "w": 7}]
    assert definition.score(rows) == float(Fraction(2**52 + 4, 2**53 + 8))


def test_normalized_and_worsening_follow_scale_and_direction():
    assert catalog.CHRF_PLUS_PLUS.normalized(61.0) == pytest.approx(0.61)
    assert catalog.TER.normalized(30.0) == pytest.approx(0.70)
    assert catalog.EXACT_MATCH.normalized(0.4) == 0.4
    assert hallucination.HALLUCINATION.normalized(0.25) == 0.75
    assert catalog.CHRF_PLUS_PLUS.normalized(150.0) == pytest.approx(1.5)  # unclamped
    assert catalog.CHRF_PLUS_PLUS.worsening(-2.0) == 2.0
    assert catalog.TER.worsening(-2.0) == -2.0
    assert catalog.TER.worsening(3.0) == 3.0
    assert catalog.EXACT_MATCH.worsening(0.1) == -0.1


def test_points_are_metrics_above_a_scale_of_one():
    assert catalog.CHRF_PLUS_PLUS.points
    assert catalog.TER.points
    assert not catalog.EXACT_MATCH.points
    assert not MetricDefinition("x", "x", ShareOfAll("x"), scale=1.0).points
    assert MetricDefinition("x", "x", ShareOfAll("x"), scale=1.5).points


def test_a_table_has_one_row_per_entry_even_for_one_column_families():
    table = ShareOfAll("ok").read([{"ok": True}], frozenset())
    assert table is not None
    assert table.shape == (1, 2)
    assert table.dtype == np.float64


def test_a_table_of_integer_statistics_is_float64():
    # a card read back from JSON holds sacrebleu's BLEU statistics as integers
    own = [int(x) for x in _stats("bleu", "il pleut", "il pleut fort")]
    table = SacreFamily("bleu").read([{"stats": {"bleu": own}}], frozenset())
    assert table is not None
    assert table.dtype == np.float64
    assert table.tolist() == [[float(x) for x in own]]


def test_a_definition_is_shown_when_measured_after_the_builtins_and_takes_no_card_key():
    """What a plugin's definition gets unless it says otherwise (``catalog.shown``)."""
    plain = MetricDefinition("x", "x", ShareOfAll("x"))
    assert (plain.shown, plain.shown_at, plain.card_keys) == ("when_measured", 0, ())
    assert fst.FST_ACCEPTANCE.card_keys == ("fst_accepted", "fst_words", "fst_version")
    assert catalog.CHRF_PLUS_PLUS.shown == "always"
    assert orthography.ORTHOGRAPHY.shown == "never"
