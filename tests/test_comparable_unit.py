"""``scoring.comparable``: a run card or a reference-harness report in the one form two runs
are compared in. Cards and reports are built here; expected values are worked out by hand or
with sacrebleu's own corpus scoring (never through the module's definitions)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from sacrebleu.metrics import BLEU, CHRF, TER

from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.comparable_card import card_profile, from_card
from pytest_mteval.metrics import catalog
from pytest_mteval.scoring import comparable_run

PAIRS = [
    ("le chat est sur le tapis", "le chat est assis sur le tapis"),
    ("il pleut", "il pleut"),
    ("bonjour", "bonsoir"),
]


def _stats(metric: Any, hyp: str, ref: str) -> list[float]:
    (row,) = metric._extract_corpus_statistics([hyp], [[ref]])
    return [float(x) for x in row]


def test_a_harness_report_is_told_apart_from_a_card():
    assert comparable_run.is_harness_report({"entries": [], "overall": {}})
    assert not comparable_run.is_harness_report({"entries": [], "overall": None})
    assert not comparable_run.is_harness_report({"entries": {}, "overall": {}})
    assert not comparable_run.is_harness_report({"results": [], "scores": {}})


#: What every card has beside the fields a test sets (its schema's required fields).
_HEAD: dict[str, Any] = {
    "run_id": "r",
    "harness_version": "0",
    "timestamp": "t",
    "elapsed_seconds": 0.0,
    "model_slug": "gpt-x",
    "condition": "c",
    "temperature": 0.0,
    "system_prompt_sha256": "0" * 64,
    "system_prompt_used": "",
    "dataset": {"id": "d", "version": "1", "language_pair": "en>fr", "sha256": "f" * 64},
    "totals": {},
    "results": [],
    "fingerprint": "0" * 64,
    "run_card_hash": "",
}
_NO_SCORES: dict[str, Any] = {
    "total": 0,
    "errors": 0,
    "exact_matches": 0,
    "exact_match_rate": None,
    "chrf_plus_plus": None,
}


def _model(scores: dict[str, Any] | None = None, **changes: Any) -> RunCard:
    """A card as its readers get it, with ``scores`` beside the required null ones."""
    head = {**_HEAD, "dataset": {**_HEAD["dataset"], "entry_count": 0}}
    card = {**head, "scores": {**_NO_SCORES, **(scores or {})}, **changes}
    model = RunCard.model_validate({**card, "results": []}, strict=True)
    model.results = card["results"]  # rows stay the card's own dicts, as a reader gets them
    return model


def _card(**changes: Any) -> RunCard:
    card: dict[str, Any] = {
        "scores": {
            "exact_match_rate": 0.5,
            "chrf_plus_plus": 60.0,
            "bleu": 7,
            "composite": 0.42,
            "scoring_profile": "B",
        },
        "results": [
            {"entry_id": 1, "source": "a", "expected": "b", "exact_match": True},
            {"entry_id": "2", "source": "c", "expected": "d", "exact_match": False},
        ],
        "run_card_hash": "h" * 64,
        "hallucination": {"hallucination_entries": [2, "7"]},
    }
    card.update(changes)
    return _model(**card)


@pytest.mark.parametrize(("metric", "value"), [("ter", True), ("semantic_score", "0.9")])
def test_a_score_that_is_not_a_number_never_reaches_a_comparable(metric, value):
    """True is never read as 1, nor text as a number: the card's schema refuses both."""
    with pytest.raises(ValidationError, match=metric):
        _model({metric: value})


def test_a_card_becomes_a_comparable_with_its_numbers_rows_and_findings():
    card = _card()
    run = from_card(card, "cards/run.json")
    assert run.path == "cards/run.json"
    assert run.origin == "run card"
    assert run.label == "gpt-x"
    assert run.dataset_sha256 == "f" * 64
    assert run.profile == "B"
    assert run.metrics == {
        **dict.fromkeys(catalog.names()),
        "exact_match_rate": 0.5,
        "chrf_plus_plus": 60.0,
        "bleu": 7.0,
    }
    assert type(run.metrics["bleu"]) is float
    assert run.composite == 0.42
    assert list(run.rows) == ["1", "2"]
    assert run.rows["1"] == card.results[0]
    assert run.rows["1"] is not card.results[0]  # a copy: statistics added never edit it
    assert run.run_card_hash == "h" * 64
    assert run.hallucinated == frozenset({"2", "7"})
    assert run.available() == {"exact_match_rate", "chrf_plus_plus", "bleu"}
    assert run.describe() == "cards/run.json (run card, gpt-x, 2 entries)"
    assert run.notes == []
    assert run.reported_only == {}


_RAN_HALF = {"entries_run": 1, "entries_in_corpus": 2}


@pytest.mark.parametrize(
    ("changes", "partial"),
    [
        ({}, False),
        ({"complete": True, "coverage": {"complete": True, **_RAN_HALF}}, False),
        ({"complete": False}, True),  # stopped early (-x, Ctrl-C)
        ({"coverage": {"complete": False, **_RAN_HALF}}, True),  # -k, --lf, filters
        ({"complete": True, "coverage": {"complete": False, **_RAN_HALF}}, True),
    ],
)
def test_a_card_of_part_of_the_corpus_is_a_partial_comparable(changes, partial):
    """A partial run must not become a baseline (``load_baseline`` refuses it by this flag)."""
    assert from_card(_card(**changes), "run.json").partial is partial


def test_a_card_without_composite_label_hash_or_findings_gets_them_computed_or_empty():
    scores = {"exact_match_rate": 0.5, "chrf_plus_plus": 60.0}
    card = _card(model_slug="", run_card_hash="", hallucination=None, scores=scores)
    run = from_card(card, "x.json")
    # profile B over exact match and chrF++: (0.25 * 0.6 + 0.10 * 0.5) / 0.35
    assert run.composite == pytest.approx((0.25 * 0.6 + 0.10 * 0.5) / 0.35)
    assert run.label == "?"
    assert run.run_card_hash is None
    assert run.hallucinated == frozenset()
    bare = from_card(_model(model_slug=""), "y.json")
    assert bare.metrics == dict.fromkeys(catalog.names())
    assert bare.composite is None
    assert bare.rows == {}
    assert bare.label == "?"
    assert bare.profile == "B"
    assert from_card(_model(hallucination={}), "z.json").hallucinated == frozenset()


def test_the_records_a_card_was_built_from_are_its_rows():
    records: Any = [{"entry_id": "r1", "source": "s", "expected": "t", "stats": {"chrf": [1.0]}}]
    run = from_card(_card(), "run.json", records)
    assert list(run.rows) == ["r1"]
    assert run.rows["r1"]["stats"] == {"chrf": [1.0]}


@pytest.mark.parametrize(
    ("scores", "top", "profile"),
    [
        ({"scoring_profile": "A"}, {}, "A"),
        ({"scoring_profile": "B", "fst_acceptance_rate": 0.5}, {}, "B"),
        ({}, {"scoring": {"profile": "A"}}, "A"),
        ({"scoring_profile": "Z", "fst_acceptance_rate": 0.5}, {}, "A"),
        ({"fst_acceptance_rate": 0.0}, {}, "A"),
        ({"fst_acceptance_rate": None}, {}, "B"),
        ({}, {"scoring": None}, "B"),
        ({}, {}, "B"),
    ],
)
def test_a_cards_profile_is_the_recorded_one_else_a_when_it_measured_fst(scores, top, profile):
    card = _model(scores, **top)
    assert card_profile(card) == profile
    assert type(card_profile(card)) is str


def _report(**overall: Any) -> dict[str, Any]:
    entries = [
        {"id": f"e{i}", "source": f"src {i}", "expected": ref, "predicted": hyp, "cost_usd": 0.01}
        for i, (hyp, ref) in enumerate(PAIRS)
    ]
    entries.append({"id": 9, "source": "x", "expected": "il fait beau", "error": "timeout"})
    return {
        "run_id": "r-1",
        "config": {"model": "haiku"},
        "entries": entries,
        "overall": {
            "corpus_chrf": 1.0,
            "confidence_intervals": {"composite_score": {"score": 0.5}},
            "plugin_metrics": {"fst": 1},
            **overall,
        },
    }


def test_a_harness_report_is_re_scored_by_sacrebleu_from_its_own_predictions():
    report = _report()
    run = comparable_run.from_harness_report(report, "r.json")
    hyps = [h for h, _ in PAIRS] + [""]
    refs = [[r for _, r in PAIRS] + ["il fait beau"]]
    chrf = CHRF(word_order=2).corpus_score(hyps, refs).score
    assert run.metrics["chrf_plus_plus"] == pytest.approx(chrf)
    assert run.metrics["bleu"] == pytest.approx(BLEU().corpus_score(hyps, refs).score)
    assert run.metrics["ter"] == pytest.approx(TER().corpus_score(hyps, refs).score)
    assert run.metrics["exact_match_rate"] == 0.25  # one of four; the errored entry misses
    assert {n for n, v in run.metrics.items() if v is not None} == {
        "chrf_plus_plus", "bleu", "ter", "exact_match_rate"
    }  # fmt: skip
    assert run.origin == "reference-harness report"
    assert run.label == "haiku"
    assert run.dataset_sha256 is None
    assert run.profile == "B"
    assert run.composite == pytest.approx((0.25 * chrf / 100 + 0.10 * 0.25) / 0.35)
    assert list(run.rows) == ["e0", "e1", "e2", "9"]
    assert [r["index"] for r in run.rows.values()] == [0, 1, 2, 3]
    assert run.reported_only == {"composite_score": 0.5, "plugin_metrics": {"fst": 1}}
    assert run.notes == [
        f"r.json: the report's own corpus chrF++ 1.00 differs from ours {chrf:.2f} "
        "re-scored from its predictions; ours is used"
    ]


def test_a_reports_own_chrf_within_rounding_is_not_noted():
    hyps = [h for h, _ in PAIRS] + [""]
    refs = [[r for _, r in PAIRS] + ["il fait beau"]]
    chrf = CHRF(word_order=2).corpus_score(hyps, refs).score
    assert comparable_run.from_harness_report(_report(corpus_chrf=chrf + 0.01), "r").notes == []
    assert comparable_run.from_harness_report(_report(corpus_chrf=chrf - 0.01), "r").notes == []
    assert len(comparable_run.from_harness_report(_report(corpus_chrf=chrf + 0.02), "r").notes) == 1
    assert comparable_run.from_harness_report(_report(corpus_chrf=None), "r").notes == []
    assert comparable_run.from_harness_report(_report(corpus_chrf="90"), "r").notes == []


def test_a_report_without_config_or_overall_details_still_reads():
    report = {"entries": _report()["entries"][:1], "overall": {}}
    run = comparable_run.from_harness_report(report, "r")
    assert run.label == "?"
    assert run.reported_only == {"composite_score": None, "plugin_metrics": {}}
    assert comparable_run.from_harness_report({**report, "run_id": "r-9"}, "r").label == "r-9"
    no_overall = comparable_run.from_harness_report({"entries": [], "overall": None}, "r")
    assert no_overall.rows == {}
    assert no_overall.notes == []


def test_a_harness_entry_becomes_our_record_with_every_familys_statistics():
    entry = {
        "id": 5,
        "source": "s",
        "expected": "il pleut",
        "predicted": "il pleut",
        "latency_s": 2,
    }
    row = comparable_run.harness_row({**entry, "cost_usd": 0.5}, 3)
    assert (row["entry_id"], row["index"], row["source"], row["expected"]) == (
        "5",
        3,
        "s",
        "il pleut",
    )
    assert (row["predicted"], row["error"], row["latency_s"]) == ("il pleut", None, 2)
    assert (row["cost_usd"], row["fst_valid"], row["fst_rejected_words"]) == (0.5, None, None)
    assert row["exact_match"] is True
    assert row["stats"] == {
        "chrf": _stats(CHRF(word_order=2), "il pleut", "il pleut"),
        "bleu": _stats(BLEU(), "il pleut", "il pleut"),
        "ter": _stats(TER(), "il pleut", "il pleut"),
    }
    assert comparable_run.harness_row(entry)["index"] == 0


@pytest.mark.parametrize(
    "entry",
    [
        {"id": "e", "expected": "il pleut", "predicted": "il pleut", "error": "boom"},
        {"id": "e", "expected": "il pleut", "predicted": None},
        {"id": "e", "expected": "il pleut", "predicted": 3},
    ],
)
def test_an_errored_or_missing_prediction_is_an_empty_translation(entry):
    row = comparable_run.harness_row(entry)
    assert row["predicted"] is None
    assert row["error"] == entry.get("error")
    assert row["source"] == ""
    assert row["stats"]["chrf"] == _stats(CHRF(word_order=2), "", "il pleut")
    assert row["stats"]["ter"] == _stats(TER(), "", "il pleut")


def test_an_empty_error_is_no_error_and_missing_text_is_empty():
    row = comparable_run.harness_row({"id": "e", "predicted": "x", "error": ""})
    assert row["error"] is None
    assert row["predicted"] == "x"
    assert (row["source"], row["expected"]) == ("", "")
    assert row["cost_usd"] is None


def test_row_stats_keeps_every_familys_statistics_on_the_row():
    row: Any = {"predicted": "bonjour", "expected": "bonsoir"}
    stats = comparable_run.row_stats(row)
    assert row["stats"] is stats
    assert stats == {
        "chrf": _stats(CHRF(word_order=2), "bonjour", "bonsoir"),
        "bleu": _stats(BLEU(), "bonjour", "bonsoir"),
        "ter": _stats(TER(), "bonjour", "bonsoir"),
    }


def test_an_entry_statistic_is_the_registered_definition_over_the_rows():
    rows = [
        {"entry_id": "1", "hallucination_detected": False},
        {"entry_id": "2", "hallucination_detected": True},
        {"entry_id": "3", "hallucination_detected": False},
    ]
    statistic = comparable_run.entry_statistic("hallucination_rate", rows, frozenset({"3"}))
    assert statistic is not None
    assert statistic.rows.tolist() == [[0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    assert statistic.value([2.0, 3.0]) == pytest.approx(2 / 3)
    plain = comparable_run.entry_statistic("hallucination_rate", rows)
    assert plain is not None
    assert plain.rows[:, 0].tolist() == [0.0, 1.0, 0.0]
    assert comparable_run.entry_statistic("no_such_metric", rows) is None
    assert comparable_run.entry_statistic("fst_acceptance_rate", rows) is None


def test_a_constant_statistic_holds_its_value_on_any_resample():
    statistic = comparable_run.constant_statistic(0.37, 4)
    assert statistic.rows.tolist() == [[0.37, 1.0]] * 4
    assert statistic.value([0.37 * 2, 2.0]) == pytest.approx(0.37)


def test_a_reports_chrf_exactly_at_the_rounding_limit_is_not_noted():
    # no character in common: our chrF++ is exactly 0, so 0.01 is exactly the limit
    report = {
        "entries": [{"id": "a", "expected": "abc", "predicted": "xyz"}],
        "overall": {"corpus_chrf": 0.01},
    }
    run = comparable_run.from_harness_report(report, "r.json")
    assert run.metrics["chrf_plus_plus"] == 0.0
    assert run.path == "r.json"
    assert run.notes == []
    over = comparable_run.from_harness_report(
        {**report, "overall": {"corpus_chrf": 0.02}}, "r.json"
    )
    assert over.notes == [
        "r.json: the report's own corpus chrF++ 0.02 differs from ours 0.00 re-scored from "
        "its predictions; ours is used"
    ]


def test_the_records_a_card_was_built_from_are_its_rows_as_they_are():
    """No copy of every record at the end of a run, while the card's rows exist too (memory
    at 100 k entries); a card's own rows are still read as copies."""
    card = _card()
    records: list[Any] = [dict(row, stats=None) for row in card.results]
    run = from_card(card, "run.json", records)
    assert all(run.rows[str(r["entry_id"])] is r for r in records)
    read = from_card(card, "run.json")
    assert all(row is not read.rows[str(row["entry_id"])] for row in card.results)
