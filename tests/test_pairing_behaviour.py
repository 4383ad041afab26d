"""``scoring.pairing``: which entries and metrics two runs share, and each metric's change.

Runs are built here as :class:`Comparable` objects with a few rows each, so every case costs
milliseconds (mutation testing runs them per mutant). Expected notes are the exact lines a
user reads; expected values are worked out by hand: shares with ``Fraction``, the paired test
on indexes drawn as sacrebleu draws them (``default_rng(seed).choice(n, (B, n))``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from pytest_mteval.scoring import paired_comparison
from pytest_mteval.scoring.comparable_run import Comparable

EXACT = [True, False, True, True, False, True, False, False, True, True]
EXACT_NOW = [True, True, True, True, False, True, True, False, True, True]


def _rows(exact: list[bool], **extra: list[Any]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for i, match in enumerate(exact):
        row = {"entry_id": f"e{i}", "source": f"s{i}", "expected": f"t{i}", "exact_match": match}
        row.update({name: values[i] for name, values in extra.items()})
        rows[f"e{i}"] = row
    return rows


def _run(
    rows: dict[str, dict[str, Any]],
    metrics: dict[str, float | None],
    profile: str = "B",
    sha: str | None = "d" * 64,
    path: str = "run.json",
    notes: list[str] | None = None,
) -> Comparable:
    return Comparable(
        path=path,
        origin="run card",
        label=path,
        dataset_sha256=sha,
        profile=profile,
        metrics=metrics,
        composite=None,
        rows=rows,  # type: ignore[arg-type]
        notes=list(notes or []),
    )


def _share(values: list[bool]) -> float:
    return float(Fraction(sum(values), len(values)))


def test_runs_of_one_dataset_pair_every_entry_and_the_metrics_both_measured():
    base = _run(_rows(EXACT), {"exact_match_rate": _share(EXACT), "bleu": 10.0}, notes=["old"])
    now = _run(_rows(EXACT_NOW), {"exact_match_rate": _share(EXACT_NOW), "ter": 50.0})
    paired = paired_comparison.pair(base, now)
    assert paired.common == [f"e{i}" for i in range(10)]
    assert paired.shared == ["exact_match_rate"]
    assert paired.composite_metrics == ["exact_match_rate"]
    assert paired.profile == "B"
    assert paired.notes == ["old"]  # the baseline's own notes, nothing left out
    assert base.notes == ["old"]  # a copy: pairing does not add to the run's notes


def test_entries_are_taken_in_the_current_runs_order_and_extra_ones_are_noted():
    base_rows = _rows(EXACT)
    now_rows = dict(reversed(list(_rows(EXACT_NOW[:7]).items())))
    now_rows["new"] = {"entry_id": "new", "source": "x", "expected": "y", "exact_match": True}
    base = _run(base_rows, {"exact_match_rate": 0.5})
    now = _run(now_rows, {"exact_match_rate": 0.5})
    paired = paired_comparison.pair(base, now)
    assert paired.common == [f"e{i}" for i in range(6, -1, -1)]
    assert paired.notes == ["compared over the 7 entries both runs scored (baseline 10, now 8)"]


@pytest.mark.parametrize(("base_n", "now_n"), [(10, 9), (9, 10)])
def test_a_run_with_entries_the_other_lacks_is_noted(base_n, now_n):
    base = _run(_rows(EXACT[:base_n]), {"exact_match_rate": 0.5})
    now = _run(_rows(EXACT_NOW[:now_n]), {"exact_match_rate": 0.5})
    paired = paired_comparison.pair(base, now)
    assert paired.notes == [
        f"compared over the 9 entries both runs scored (baseline {base_n}, now {now_n})"
    ]


@pytest.mark.parametrize(("base_sha", "now_sha"), [(None, None), ("a" * 64, "b" * 64), ("", "")])
def test_entries_whose_source_or_reference_changed_are_left_out_unless_the_data_is_one(
    base_sha, now_sha
):
    base_rows = _rows(EXACT)
    now_rows = _rows(EXACT_NOW)
    now_rows["e1"]["source"] = "changed"
    now_rows["e4"]["expected"] = "changed"
    base = _run(base_rows, {"exact_match_rate": 0.5}, sha=base_sha)
    now = _run(now_rows, {"exact_match_rate": 0.5}, sha=now_sha)
    paired = paired_comparison.pair(base, now)
    assert paired.common == ["e0", "e2", "e3", "e5", "e6", "e7", "e8", "e9"]
    assert paired.notes == [
        "2 entries whose source or reference changed are left out",
        "compared over the 8 entries both runs scored (baseline 10, now 10)",
    ]
    # one dataset sha256 vouches for every entry (a withheld card has no text to compare)
    same = paired_comparison.pair(
        _run(base_rows, {}, sha="a" * 64), _run(now_rows, {}, sha="a" * 64)
    )
    assert len(same.common) == 10
    assert same.notes == []


def test_another_profile_and_metrics_only_one_run_has_are_noted():
    base = _run(
        _rows(EXACT),
        {"exact_match_rate": 0.5, "chrf_plus_plus": 40.0, "fst_acceptance_rate": 0.9, "bleu": 1.0},
        profile="A",
    )
    now = _run(
        _rows(EXACT_NOW),
        {"exact_match_rate": 0.6, "chrf_plus_plus": 45.0, "semantic_score": 0.8, "ter": 2.0},
        profile="B",
    )
    paired = paired_comparison.pair(base, now)
    assert paired.profile == "B"
    assert paired.shared == ["chrf_plus_plus", "exact_match_rate"]
    assert paired.composite_metrics == ["chrf_plus_plus", "exact_match_rate"]  # B's order
    assert paired.notes == [
        "baseline used scoring profile A, this run B: both composites use profile B",
        "composites recomputed over the metrics both runs measured (chrf_plus_plus, "
        "exact_match_rate); only this run has semantic_score",
    ]
    # fst_acceptance_rate is not weighed in profile B: not worth a note
    reverse = paired_comparison.pair(
        now, _run(_rows(EXACT), {"exact_match_rate": 0.5}, profile="B")
    )
    assert reverse.notes == [
        "composites recomputed over the metrics both runs measured (exact_match_rate); "
        "only the baseline had chrf_plus_plus, semantic_score"
    ]


def test_a_composite_uses_the_profiles_order_and_only_shared_metrics():
    metrics = {"exact_match_rate": 0.5, "chrf_plus_plus": 40.0, "fst_acceptance_rate": 0.9}
    paired = paired_comparison.pair(
        _run(_rows(EXACT), metrics, "A"), _run(_rows(EXACT), metrics, "A")
    )
    assert paired.composite_metrics == [
        "fst_acceptance_rate",
        "chrf_plus_plus",
        "exact_match_rate",
    ]
    assert paired.notes == []


def _draws(n: int, resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)


def _paired_by_hand(
    base: list[int], now: list[int], resamples: int, seed: int, confidence: float
) -> tuple[float, float, float]:
    """Koehn's paired test as sacrebleu runs it (ties counted): bounds and p-value."""
    n = len(base)
    diffs = sorted(
        Fraction(sum(now[i] for i in row) - sum(base[i] for i in row), n)
        for row in _draws(n, resamples, seed)
    )
    observed = abs(Fraction(sum(now) - sum(base), n))
    absolute = [abs(d) for d in diffs]
    mean = sum(absolute, Fraction(0)) / resamples
    exceed = sum(1 for d in absolute if d - mean >= observed)
    outside = int(resamples * (1 - confidence) / 2 + 1e-9)
    return (
        float(diffs[outside]),
        float(diffs[resamples - 1 - outside]),
        (exceed + 1) / (resamples + 1),
    )


def test_a_measure_is_the_paired_bootstrap_over_the_common_entries():
    base = _run(_rows(EXACT), {"exact_match_rate": _share(EXACT)})
    now = _run(_rows(EXACT_NOW), {"exact_match_rate": _share(EXACT_NOW)})
    paired = paired_comparison.pair(base, now)
    out = paired_comparison.measure(
        base, now, paired, ["exact_match_rate"], n_bootstrap=40, seed=3, confidence=0.8
    )
    measure = out["exact_match_rate"]
    lower, upper, p = _paired_by_hand(
        [int(x) for x in EXACT], [int(x) for x in EXACT_NOW], 40, 3, 0.8
    )
    assert measure.metric == "exact_match_rate"
    assert measure.baseline == pytest.approx(0.6)
    assert measure.now == pytest.approx(0.8)
    assert measure.delta == pytest.approx(0.2)
    assert (measure.lower, measure.upper) == (pytest.approx(lower), pytest.approx(upper))
    assert measure.p_value == pytest.approx(p)
    assert measure.held_fixed is False
    assert paired.notes == []


def test_the_default_resampling_is_sacrebleus():
    base = _run(_rows(EXACT), {"exact_match_rate": _share(EXACT)})
    now = _run(_rows(EXACT_NOW), {"exact_match_rate": _share(EXACT_NOW)})
    measure = paired_comparison.measure(
        base, now, paired_comparison.pair(base, now), ["exact_match_rate"]
    )
    lower, upper, p = _paired_by_hand(
        [int(x) for x in EXACT], [int(x) for x in EXACT_NOW], 1000, 12345, 0.95
    )
    got = measure["exact_match_rate"]
    assert (got.lower, got.upper, got.p_value) == (
        pytest.approx(lower),
        pytest.approx(upper),
        pytest.approx(p),
    )


def test_without_the_test_a_measure_has_point_values_only():
    base = _run(_rows(EXACT), {"exact_match_rate": _share(EXACT)})
    now = _run(_rows(EXACT_NOW), {"exact_match_rate": _share(EXACT_NOW)})
    out = paired_comparison.measure(
        base, now, paired_comparison.pair(base, now), ["exact_match_rate", "composite"], test=False
    )
    assert out["exact_match_rate"] == paired_comparison.Measure(
        "exact_match_rate", pytest.approx(0.6), pytest.approx(0.8), pytest.approx(0.2),
        None, None, None, False,
    )  # fmt: skip
    # profile B over exact match alone: the composite is the share itself
    assert out["composite"].baseline == pytest.approx(0.6)
    assert out["composite"].now == pytest.approx(0.8)
    assert out["composite"].p_value is None


def test_the_composite_is_recomputed_over_the_shared_metrics_on_each_resample():
    fst_base = [3, 4, 0, 5, 2, 1, 4, 4, 3, 2]
    fst_now = [4, 4, 1, 5, 3, 1, 4, 4, 4, 2]
    words = [5, 4, 2, 5, 4, 2, 4, 5, 4, 3]
    base = _run(
        _rows(EXACT, fst_accepted_words=fst_base, fst_words=words),
        {"exact_match_rate": 0.6, "fst_acceptance_rate": 0.7, "chrf_plus_plus": 30.0},
        profile="A",
    )
    now = _run(
        _rows(EXACT_NOW, fst_accepted_words=fst_now, fst_words=words),
        {"exact_match_rate": 0.8, "fst_acceptance_rate": 0.8},
        profile="A",
    )
    paired = paired_comparison.pair(base, now)
    out = paired_comparison.measure(base, now, paired, ["composite"], n_bootstrap=20, seed=8)
    assert set(out) == {"composite"}

    def composite(exact: list[bool], fst: list[int], row: Any) -> float:
        em = Fraction(sum(exact[i] for i in row), len(row))
        acc = Fraction(sum(fst[i] for i in row), sum(words[i] for i in row))
        return float((Fraction(25, 100) * acc + Fraction(5, 100) * em) / Fraction(30, 100))

    everything = range(10)
    assert out["composite"].baseline == pytest.approx(composite(EXACT, fst_base, everything))
    assert out["composite"].now == pytest.approx(composite(EXACT_NOW, fst_now, everything))
    diffs = sorted(
        composite(EXACT_NOW, fst_now, row) - composite(EXACT, fst_base, row)
        for row in _draws(10, 20, 8)
    )
    assert out["composite"].lower == pytest.approx(diffs[0])
    assert out["composite"].upper == pytest.approx(diffs[-1])
    assert out["composite"].held_fixed is False


def test_a_metric_without_per_entry_statistics_is_held_fixed_and_left_out_of_the_composite():
    base = _run(_rows(EXACT), {"exact_match_rate": 0.6, "fst_acceptance_rate": 0.5}, profile="A")
    now = _run(
        _rows(EXACT_NOW), {"exact_match_rate": 0.8, "fst_acceptance_rate": 0.75}, profile="A"
    )
    paired = paired_comparison.pair(base, now)
    out = paired_comparison.measure(
        base, now, paired, ["fst_acceptance_rate", "composite"], n_bootstrap=30, seed=2
    )
    held = out["fst_acceptance_rate"]
    assert held == paired_comparison.Measure(
        "fst_acceptance_rate", 0.5, 0.75, 0.25, None, None, None, True
    )
    assert paired.composite_metrics == ["exact_match_rate"]
    assert paired.notes == [
        "held at their run-level values, not resampled: fst_acceptance_rate",
        "composites recomputed without the metrics held fixed (fst_acceptance_rate): "
        "over exact_match_rate",
    ]
    # the composite is exact match alone, resampled and tested
    composite = out["composite"]
    assert composite.baseline == pytest.approx(0.6)
    assert composite.now == pytest.approx(0.8)
    assert composite.p_value is not None
    assert composite.held_fixed is False


def test_a_composite_of_held_metrics_only_has_no_metric_left():
    base = _run(_rows(EXACT), {"fst_acceptance_rate": 0.5, "bleu": 10.0}, profile="A")
    now = _run(_rows(EXACT_NOW), {"fst_acceptance_rate": 0.75, "bleu": 12.0}, profile="A")
    paired = paired_comparison.pair(base, now)
    out = paired_comparison.measure(base, now, paired, ["composite", "fst_acceptance_rate"], seed=1)
    assert paired.composite_metrics == []
    assert paired.notes[-1] == (
        "composites recomputed without the metrics held fixed (fst_acceptance_rate): over no metric"
    )
    assert out["composite"] == paired_comparison.Measure(
        "composite", None, None, None, None, None, None
    )
    assert out["fst_acceptance_rate"].held_fixed


def test_held_fixed_metrics_are_listed_sorted():
    rows = _rows(EXACT)
    metrics = {"fst_acceptance_rate": 0.5, "bleu": 10.0, "morphological_accuracy": 0.4}
    base, now = _run(rows, metrics), _run(rows, metrics)
    paired = paired_comparison.pair(base, now)
    wanted = ["morphological_accuracy", "fst_acceptance_rate"]
    paired_comparison.measure(base, now, paired, wanted, test=False)
    assert paired.notes == [
        "held at their run-level values, not resampled: fst_acceptance_rate, morphological_accuracy"
    ]


def test_metrics_not_shared_or_no_common_entries_give_empty_measures():
    empty = paired_comparison.Measure("ter", None, None, None, None, None, None, False)
    base = _run(_rows(EXACT), {"exact_match_rate": 0.6, "ter": 40.0})
    now = _run(_rows(EXACT_NOW), {"exact_match_rate": 0.8})
    out = paired_comparison.measure(
        base, now, paired_comparison.pair(base, now), ["ter", "exact_match_rate"]
    )
    assert out["ter"] == empty
    assert out["exact_match_rate"].p_value is not None
    apart = _run({"x": {"entry_id": "x", "source": "a", "expected": "b"}}, {"ter": 40.0})
    paired = paired_comparison.pair(base, apart)
    assert paired.common == []
    assert paired_comparison.measure(base, apart, paired, ["ter"]) == {"ter": empty}
    nothing = paired_comparison.pair(_run(_rows(EXACT), {}), _run(_rows(EXACT), {}))
    assert paired_comparison.measure(base, now, nothing, ["composite"]) == {
        "composite": paired_comparison.Measure("composite", None, None, None, None, None, None)
    }


def test_a_metric_without_a_value_names_the_run():
    run = _run(_rows(EXACT), {"exact_match_rate": None}, path="cards/old.json")
    with pytest.raises(
        ValueError, match=r"^cards/old\.json: metric 'exact_match_rate' has no value$"
    ):
        paired_comparison._value(run, "exact_match_rate")
    assert paired_comparison._value(_run({}, {"bleu": 3.0}), "bleu") == 3.0


def test_a_composite_derived_value_is_limited_to_its_metrics():
    derived = paired_comparison._composite("B", ["exact_match_rate"])
    assert derived({"exact_match_rate": 0.5, "chrf_plus_plus": 100.0}) == 0.5
    assert derived({"chrf_plus_plus": 100.0}) is None


def test_entries_only_the_current_run_has_are_skipped_wherever_they_are():
    base = _run(_rows(EXACT), {"exact_match_rate": 0.6})
    now_rows = {"first": {"entry_id": "first", "source": "x", "expected": "y"}, **_rows(EXACT)}
    paired = paired_comparison.pair(base, _run(now_rows, {"exact_match_rate": 0.6}))
    assert paired.common == [f"e{i}" for i in range(10)]


def test_several_metrics_held_fixed_and_left_are_listed_with_commas():
    switched = [False, True, False, False, False, True, False, False, False, False]
    rows = _rows(EXACT, code_switching_detected=switched)
    metrics = {
        "exact_match_rate": 0.6,
        "code_switching_rate": 0.2,
        "fst_acceptance_rate": 0.5,
        "morphological_accuracy": 0.4,
    }
    base, now = _run(rows, metrics, profile="A"), _run(rows, metrics, profile="A")
    paired = paired_comparison.pair(base, now)
    paired_comparison.measure(base, now, paired, ["composite"], test=False)
    assert paired.composite_metrics == ["code_switching_rate", "exact_match_rate"]
    assert paired.notes == [
        "held at their run-level values, not resampled: fst_acceptance_rate, "
        "morphological_accuracy",
        "composites recomputed without the metrics held fixed (fst_acceptance_rate, "
        "morphological_accuracy): over code_switching_rate, exact_match_rate",
    ]


def test_a_metric_undefined_over_the_common_entries_has_no_delta():
    # the baseline counted FST words only on entries the current run does not have
    base_rows = _rows(EXACT, fst_accepted_words=[0] * 10, fst_words=[0] * 10)
    base_rows["old"] = {"entry_id": "old", "source": "o", "expected": "p"}
    base_rows["old"].update(fst_accepted_words=3, fst_words=4)
    now_rows = _rows(EXACT_NOW, fst_accepted_words=[1] * 10, fst_words=[2] * 10)
    metrics = {"fst_acceptance_rate": 0.75}
    base, now = _run(base_rows, metrics, "A"), _run(now_rows, {"fst_acceptance_rate": 0.5}, "A")
    for test in (True, False):
        paired = paired_comparison.pair(base, now)
        out = paired_comparison.measure(
            base, now, paired, ["fst_acceptance_rate"], test=test, n_bootstrap=10
        )
        measure = out["fst_acceptance_rate"]
        assert (measure.baseline, measure.now, measure.delta) == (None, 0.5, None)
        assert (measure.lower, measure.upper, measure.p_value) == (None, None, None)
        assert measure.held_fixed is False


def test_entries_flagged_across_entries_count_for_the_run_that_flagged_them():
    flags = [False] * 10
    base = _run(_rows(EXACT, hallucination_detected=flags), {"hallucination_rate": 0.2})
    now = _run(_rows(EXACT, hallucination_detected=flags), {"hallucination_rate": 0.1})
    base.hallucinated = frozenset({"e1", "e2"})
    now.hallucinated = frozenset({"e3"})
    paired = paired_comparison.pair(base, now)
    out = paired_comparison.measure(base, now, paired, ["hallucination_rate"], test=False)
    measure = out["hallucination_rate"]
    assert (measure.baseline, measure.now) == (0.2, 0.1)
    assert measure.delta == pytest.approx(-0.1)


def test_several_metrics_only_this_run_has_are_listed_with_commas():
    base = _run(_rows(EXACT), {"exact_match_rate": 0.5})
    now = _run(
        _rows(EXACT),
        {"exact_match_rate": 0.5, "semantic_score": 0.8, "code_switching_rate": 0.1},
    )
    assert paired_comparison.pair(base, now).notes == [
        "composites recomputed over the metrics both runs measured (exact_match_rate); "
        "only this run has code_switching_rate, semantic_score"
    ]
