"""The card's headline numbers from a real run's records, against hand computations: the
composite with the documented weights, its interval, tiers and group composites."""

from __future__ import annotations

import copy

import pytest
from replayed_runs import GPT55, HAIKU, card_dict, replay_card
from test_gate_options_session import composite_by_hand
from test_scoring import _markdown_table_after

from pytest_mteval.scoring import run_judgement


@pytest.fixture(scope="module")
def card():
    return card_dict(replay_card(HAIKU))


def test_statistics_cover_the_interval_metrics_and_only_measured_composite_metrics(card):
    found = run_judgement.statistics_of(card["results"], card["scores"], "B")
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
    found = run_judgement.statistics_of(records, scores, "B")
    judged, flags = run_judgement.judge_run(records, scores, "B", found, cost_per_entry_usd=0.004)
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
    found = run_judgement.statistics_of(card["results"], card["scores"], "B")
    everyone = run_judgement.group_composite(found, range(47), "B")
    assert everyone == pytest.approx(composite_by_hand(card["scores"]), abs=1e-12)
    for level, group in card["scores"]["by_difficulty"].items():
        positions = [i for i, row in enumerate(card["results"]) if str(row["difficulty"]) == level]
        assert len(positions) == group["count"]
        alone = run_judgement.group_composite(found, positions, "B")
        assert alone == pytest.approx(group["composite"], abs=1e-12)
        assert alone != pytest.approx(everyone, abs=1e-6)


def test_a_deployable_run_is_a_candidate_and_a_flagged_one_is_capped():
    strong = card_dict(replay_card(GPT55))
    scores, records = strong["scores"], strong["results"]
    assert composite_by_hand(scores) >= 0.70  # deployable by the table
    found = run_judgement.statistics_of(records, scores, "B")
    judged, flags = run_judgement.judge_run(records, scores, "B", found, None)
    assert (judged["quality_tier_uncapped"], flags) == ("deployable", [])
    assert judged["quality_tier"] == "deployable (candidate, needs community review)"
    validated, _ = run_judgement.judge_run(records, scores, "B", found, None, human_validated=True)
    assert validated["quality_tier"] == "deployable"

    emptied = copy.deepcopy(records)
    for row in emptied[:10]:  # 10 of 47 empty: over the 10 % the empty_output guard allows
        row["predicted"] = ""
    judged, flags = run_judgement.judge_run(emptied, scores, "B", found, None, human_validated=True)
    assert "empty_output" in {flag["code"] for flag in flags}
    assert (judged["quality_tier_uncapped"], judged["quality_tier"]) == ("deployable", "emerging")


def test_entries_hallucinated_across_entries_count_in_the_hallucination_statistic(card):
    records = card["results"]
    checked = [r for r in records if r.get("hallucination_detected") is not None]
    own = {str(r["entry_id"]) for r in checked if r["hallucination_detected"]}
    across = frozenset(str(r["entry_id"]) for r in checked if str(r["entry_id"]) not in own)
    named = frozenset(sorted(across)[:5])
    assert len(named) == 5
    found = run_judgement.statistics_of(records, card["scores"], "B", named)
    plain = run_judgement.statistics_of(records, card["scores"], "B")
    flagged, counted = found["hallucination_rate"].rows.sum(axis=0)
    assert (flagged, counted) == (len(own) + 5, len(checked))
    assert plain["hallucination_rate"].rows.sum(axis=0).tolist() == [len(own), len(checked)]
