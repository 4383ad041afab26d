"""The card's headline numbers from a real run's records, against hand computations: the
composite with the documented weights, its interval, tiers and group composites."""

from __future__ import annotations

import pytest
from replayed_runs import HAIKU, card_dict, replay_card
from test_gate_options_session import composite_by_hand
from test_scoring import _markdown_table_after

from pytest_mteval import headline


@pytest.fixture(scope="module")
def card():
    return card_dict(replay_card(HAIKU))


def test_statistics_cover_the_interval_metrics_and_only_measured_composite_metrics(card):
    found = headline.statistics_of(card["results"], card["scores"], "B")
    assert set(found) == {
        "chrf_plus_plus",
        "bleu",
        "exact_match_rate",
        "code_switching_rate",
        "hallucination_rate",
    }  # semantic, equivalent match, terminology, orthography: not measured by this run
    assert all(s.n_entries == 47 for s in found.values())


def test_judge_run_gives_the_documented_composite_tier_and_intervals(card):
    scores, records = card["scores"], card["results"]
    found = headline.statistics_of(records, scores, "B")
    judged, flags = headline.judge_run(records, scores, "B", found, cost_per_entry_usd=0.004)
    by_hand = composite_by_hand(scores)
    assert judged["composite"] == pytest.approx(by_hand, abs=1e-12)
    assert judged["scoring_profile"] == "B"
    assert judged["composite_metrics"] == [
        "chrf_plus_plus",
        "exact_match_rate",
        "code_switching_rate",
        "hallucination_rate",
    ]
    tiers = _markdown_table_after("## Quality tiers")  # (name, at least), top-down
    tier = next(name for name, at_least in tiers if by_hand >= float(at_least))
    assert judged["quality_tier_uncapped"] == tier
    assert judged["cost_adjusted"] == pytest.approx(by_hand / 2.321928094887362)  # log2(5)
    intervals = judged["confidence_intervals"]
    assert list(intervals) == ["chrf_plus_plus", "bleu", "exact_match_rate", "composite"]
    for name, value in (("composite", by_hand), ("chrf_plus_plus", scores["chrf_plus_plus"])):
        assert intervals[name]["lower"] < value < intervals[name]["upper"], name
        assert intervals[name]["score"] == pytest.approx(value, abs=1e-9)
    assert flags == []


def test_a_group_composite_is_the_composite_of_its_entries_alone(card):
    found = headline.statistics_of(card["results"], card["scores"], "B")
    everyone = headline.group_composite(found, range(47), "B")
    assert everyone == pytest.approx(composite_by_hand(card["scores"]), abs=1e-12)
    for level, group in card["scores"]["by_difficulty"].items():
        positions = [i for i, row in enumerate(card["results"]) if str(row["difficulty"]) == level]
        assert len(positions) == group["count"]
        alone = headline.group_composite(found, positions, "B")
        assert alone == pytest.approx(group["composite"], abs=1e-12)
        assert alone != pytest.approx(everyone, abs=1e-6)
