"""``scoring.bootstrap`` at the unit level, fast enough for mutation testing.

Expected values are computed here independently: the resampled indexes are drawn as
sacrebleu draws them (``default_rng(seed).choice(n, (B, n))``), and each resample's value is
summed by hand with ``Fraction``, never through the module's weighted sums.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from pytest_mteval.metrics import catalog, fst, hallucination, sacre
from pytest_mteval.metrics.definition import MetricDefinition
from pytest_mteval.scoring import bootstrap

NUM = [3.0, 0.0, 5.0, 1.0, 2.0, 4.0, 0.0, 1.0]
DEN = [4.0, 2.0, 5.0, 3.0, 2.0, 6.0, 1.0, 1.0]


def _draws(n: int, resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)


def _ratio_by_hand(num: list[float], den: list[float], row: np.ndarray) -> Fraction | None:
    top = sum(Fraction(num[i]) for i in row)
    bottom = sum(Fraction(den[i]) for i in row)
    return top / bottom if bottom else None


def test_each_resample_is_the_ratio_of_the_drawn_entries_sums():
    statistic = bootstrap.ratio_statistic(NUM, DEN)
    samples = bootstrap.bootstrap_samples({"r": statistic}, n_bootstrap=25, seed=3)["r"]
    expected = [_ratio_by_hand(NUM, DEN, row) for row in _draws(len(NUM), 25, 3)]
    assert len(samples) == 25
    assert samples == [pytest.approx(float(e)) for e in expected]


def test_the_defaults_are_sacrebleus_seed_and_a_thousand_resamples():
    assert (bootstrap.DEFAULT_SEED, bootstrap.DEFAULT_RESAMPLES) == (12345, 1000)
    assert bootstrap.DEFAULT_CONFIDENCE == 0.95
    statistic = {"r": bootstrap.ratio_statistic(NUM, DEN)}
    samples = bootstrap.bootstrap_samples(statistic)["r"]
    expected = [_ratio_by_hand(NUM, DEN, row) for row in _draws(len(NUM), 1000, 12345)]
    assert samples == [pytest.approx(float(e)) for e in expected]
    out = bootstrap.confidence_intervals(statistic)["r"]
    assert (out["n_bootstrap"], out["seed"], out["confidence"]) == (1000, 12345, 0.95)
    ordered = sorted(float(e) for e in expected if e is not None)
    assert out["lower"] == pytest.approx(ordered[25])
    assert out["upper"] == pytest.approx(ordered[974])
    assert out["score"] == pytest.approx(float(Fraction(16, 24)))


def test_a_derived_value_is_computed_from_each_resamples_metrics():
    statistics = {
        "a": bootstrap.ratio_statistic(NUM, DEN),
        "b": bootstrap.rate_statistic([True, False, True, True, None, False, True, False]),
    }
    flags = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    counted = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]

    def total(metrics: bootstrap.Metrics) -> float | None:
        a, b = metrics["a"], metrics["b"]
        return None if a is None or b is None else a + 2 * b

    samples = bootstrap.bootstrap_samples(statistics, {"t": total}, n_bootstrap=30, seed=11)
    for r, row in enumerate(_draws(8, 30, 11)):
        a = _ratio_by_hand(NUM, DEN, row)
        b = _ratio_by_hand(flags, counted, row)
        assert samples["a"][r] == pytest.approx(float(a) if a is not None else None)
        assert samples["b"][r] == pytest.approx(float(b) if b is not None else None)
        expected = None if a is None or b is None else float(a + 2 * b)
        assert samples["t"][r] == pytest.approx(expected)
    points = bootstrap.point_values(statistics, {"t": total})
    assert points == {
        "a": pytest.approx(16 / 24),
        "b": pytest.approx(4 / 7),
        "t": pytest.approx(16 / 24 + 8 / 7),
    }
    interval = bootstrap.confidence_intervals(statistics, {"t": total}, n_bootstrap=30, seed=11)
    ordered = sorted(v for v in samples["t"] if v is not None)
    outside = math.floor(len(ordered) * 0.05 / 2 + 1e-9)
    assert interval["t"]["lower"] == ordered[outside]
    assert interval["t"]["upper"] == ordered[-1 - outside]
    assert interval["t"]["score"] == pytest.approx(16 / 24 + 8 / 7)


def test_many_resamples_are_drawn_in_blocks_that_give_one_draws_stream():
    # 2,000 entries x 600 resamples = 1.2 million cells: three blocks of 250, 250 and 100 rows
    n, resamples, seed = 2000, 600, 5
    values = [float(i % 7 == 0) for i in range(n)]
    samples = bootstrap.bootstrap_samples(
        {"r": bootstrap.ratio_statistic(values, [1.0] * n)}, n_bootstrap=resamples, seed=seed
    )["r"]
    drawn = _draws(n, resamples, seed)
    hits = np.array(values)[drawn].sum(axis=1) / n
    assert len(samples) == resamples
    assert samples == pytest.approx(hits.tolist())
    counts = list(bootstrap._resample_counts(n, resamples, seed))
    assert [block.shape for block in counts] == [(250, n), (250, n), (100, n)]
    assert all(block.dtype == np.float64 for block in counts)
    by_hand = np.stack([np.bincount(row, minlength=n) for row in drawn])
    assert np.array_equal(np.concatenate(counts), by_hand)


def test_counts_keep_entries_never_drawn_as_zero_columns():
    # the last entries are often not drawn: minlength keeps every row n long
    (block,) = bootstrap._resample_counts(3, 40, 1)
    drawn = _draws(3, 40, 1)
    assert block.shape == (40, 3)
    assert np.array_equal(block, np.stack([np.bincount(r, minlength=3) for r in drawn]))
    assert block.sum(axis=1).tolist() == [3.0] * 40


@pytest.mark.parametrize(("n", "resamples", "message"), [(0, 5, "empty"), (-1, 5, "empty")])
def test_nothing_to_resample_is_refused(n, resamples, message):
    with pytest.raises(ValueError, match=r"^cannot resample an empty set of entries$"):
        next(bootstrap._resample_counts(n, resamples, 1))


@pytest.mark.parametrize("resamples", [0, -3])
def test_a_resample_count_below_one_is_refused(resamples):
    with pytest.raises(ValueError, match=f"^n_bootstrap must be positive, got {resamples}$"):
        next(bootstrap._resample_counts(4, resamples, 1))
    with pytest.raises(ValueError, match="n_bootstrap must be positive"):
        bootstrap.bootstrap_samples({"r": bootstrap.rate_statistic([1, 0])}, n_bootstrap=resamples)


def test_one_resample_is_drawn():
    samples = bootstrap.bootstrap_samples(
        {"r": bootstrap.ratio_statistic(NUM, DEN)}, n_bootstrap=1, seed=9
    )
    (row,) = _draws(8, 1, 9)
    assert samples["r"] == [pytest.approx(float(_ratio_by_hand(NUM, DEN, row) or 0))]


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5])
def test_a_confidence_outside_0_1_is_refused(confidence):
    with pytest.raises(ValueError, match=rf"^confidence must be in \(0, 1\), got {confidence!r}$"):
        bootstrap.percentile_bounds([1.0, 2.0], confidence)


def test_percentile_positions_on_small_and_exact_sets():
    ten = [float(v) for v in range(10)]
    assert bootstrap.percentile_bounds(ten[::-1]) == (0.0, 9.0)  # floor(0.25) = 0 outside
    assert bootstrap.percentile_bounds(ten, 0.6) == (2.0, 7.0)  # floor(2.0): exactly 2 outside
    assert bootstrap.percentile_bounds(ten, 0.8) == (1.0, 8.0)  # 10 * 0.1 = 1 (0.999... in float)
    assert bootstrap.percentile_bounds([None, 4.0, None]) == (4.0, 4.0)
    assert bootstrap.percentile_bounds([]) == (None, None)


def test_an_undefined_point_value_has_no_bounds_even_when_resamples_are_defined():
    # the full sample's value is None only if no entry counts; then no resample counts either,
    # so a derived value that is defined on resamples is the way to see the rule
    statistics = {"r": bootstrap.ratio_statistic(NUM, DEN)}
    calls = iter(range(10_000))

    def only_on_resamples(metrics: bootstrap.Metrics) -> float | None:
        return None if next(calls) == 0 else metrics["r"]

    out = bootstrap.confidence_intervals(
        statistics, {"d": only_on_resamples}, n_bootstrap=20, seed=2
    )
    assert out["d"] == {
        "score": None,
        "lower": None,
        "upper": None,
        "n_bootstrap": 20,
        "seed": 2,
        "confidence": 0.95,
    }
    assert out["r"]["lower"] is not None


def test_ratio_and_sacre_statistics_refuse_malformed_input():
    with pytest.raises(ValueError, match=r"^numerators and denominators must have one value"):
        bootstrap.ratio_statistic([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match=r"^per-entry statistics must be a non-empty table"):
        bootstrap.sacre_statistic("chrf", [1.0, 2.0])  # type: ignore[list-item]
    with pytest.raises(
        ValueError, match=r"^statistics must cover the same entries, got lengths \[1, 2\]$"
    ):
        bootstrap.bootstrap_samples(
            {"a": bootstrap.rate_statistic([1, 0]), "b": bootstrap.rate_statistic([1])}
        )


def test_a_rate_counts_none_as_absent_and_a_bool_as_0_or_1():
    statistic = bootstrap.rate_statistic([True, None, 0.5, False])
    assert statistic.rows.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.5, 1.0], [0.0, 1.0]]
    assert statistic.n_entries == 4
    assert statistic.value([3.0, 4.0]) == 0.75
    assert bootstrap.ratio_statistic([2, 1], [4, 0]).rows.tolist() == [[2.0, 4.0], [1.0, 0.0]]


def test_a_sacrebleu_statistic_finalises_as_sacrebleu():
    rows = [sacre.segment_stats(h, r)["bleu"] for h, r in [("a b c d", "a b c d"), ("x y", "x z")]]
    statistic = bootstrap.sacre_statistic("bleu", rows)
    summed = [a + b for a, b in zip(*rows, strict=True)]
    expected = sacre.bleu_corpus().corpus_score(["a b c d", "x y"], [["a b c d", "x z"]]).score
    assert statistic.value(summed) == pytest.approx(expected)
    assert statistic.n_entries == 2


def test_a_definition_becomes_a_statistic_only_over_rows_with_its_statistics():
    rows = [
        {"entry_id": "1", "fst_accepted_words": 3, "fst_words": 4},
        {"entry_id": "2", "fst_accepted_words": 1, "fst_words": 2},
    ]
    statistic = bootstrap.of_definition(fst.FST_ACCEPTANCE, rows)
    assert statistic is not None
    assert statistic.rows.tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert statistic.value([4.0, 6.0]) == pytest.approx(4 / 6)
    assert bootstrap.of_definition(fst.FST_ACCEPTANCE, []) is None
    assert bootstrap.of_definition(fst.FST_ACCEPTANCE, [{"entry_id": "1"}]) is None
    flagged = [{"entry_id": "1", "hallucination_detected": False}]
    share = bootstrap.of_definition(hallucination.HALLUCINATION, flagged, frozenset({"1"}))
    assert share is not None
    assert share.rows.tolist() == [[1.0, 1.0]]


BASE = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0]
CAND = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]


def _paired_by_hand(base: list[float], cand: list[float], resamples: int, seed: int):
    n = len(base)
    diffs = [
        Fraction(sum(int(cand[i]) for i in row) - sum(int(base[i]) for i in row), n)
        for row in _draws(n, resamples, seed)
    ]
    observed = abs(Fraction(int(sum(cand)) - int(sum(base)), n))
    absolute = [abs(d) for d in diffs]
    mean = sum(absolute, Fraction(0)) / len(absolute)
    exceed = sum(1 for d in absolute if d - mean >= observed)
    return diffs, Fraction(exceed + 1, resamples + 1)


def test_the_paired_p_value_and_delta_bounds_are_koehns_test_by_hand():
    out = bootstrap.paired_bootstrap(
        {"m": bootstrap.rate_statistic(BASE)},
        {"m": bootstrap.rate_statistic(CAND)},
        n_bootstrap=40,
        seed=21,
    )["m"]
    diffs, p_value = _paired_by_hand(BASE, CAND, 40, 21)
    assert out["p_value"] == pytest.approx(float(p_value))
    assert out["baseline"] == pytest.approx(0.6)
    assert out["candidate"] == pytest.approx(0.8)
    assert out["delta"] == pytest.approx(0.2)
    ordered = sorted(diffs)
    assert out["delta_lower"] == pytest.approx(float(ordered[1]))  # floor(40 * 0.025) = 1
    assert out["delta_upper"] == pytest.approx(float(ordered[38]))
    assert (out["n_bootstrap"], out["seed"]) == (40, 21)


def test_the_paired_test_uses_the_confidence_and_default_resamples():
    base = {"m": bootstrap.rate_statistic(BASE)}
    cand = {"m": bootstrap.rate_statistic(CAND)}
    out = bootstrap.paired_bootstrap(base, cand, confidence=0.5)["m"]
    diffs, p_value = _paired_by_hand(BASE, CAND, 1000, 12345)
    ordered = sorted(diffs)
    assert (out["n_bootstrap"], out["seed"]) == (1000, 12345)
    assert out["p_value"] == pytest.approx(float(p_value))
    assert out["delta_lower"] == pytest.approx(float(ordered[250]))
    assert out["delta_upper"] == pytest.approx(float(ordered[749]))


def test_a_run_against_itself_has_p_1_and_a_zero_interval():
    same = {"m": bootstrap.rate_statistic(BASE)}
    out = bootstrap.paired_bootstrap(same, same, n_bootstrap=15, seed=4)["m"]
    assert out["p_value"] == 1.0
    assert (out["delta"], out["delta_lower"], out["delta_upper"]) == (0.0, 0.0, 0.0)


def test_a_value_only_one_run_defines_has_no_delta_interval_or_p_value():
    undefined = {"m": bootstrap.rate_statistic([None] * 10)}
    defined = {"m": bootstrap.rate_statistic(BASE)}
    for base, cand in [(undefined, defined), (defined, undefined)]:
        out = bootstrap.paired_bootstrap(base, cand, n_bootstrap=10, seed=1)["m"]
        assert out["delta"] is None
        assert out["delta_lower"] is None
        assert out["delta_upper"] is None
        assert out["p_value"] is None
    assert bootstrap._paired_p_value(0.5, None, [0.1]) is None
    assert bootstrap._paired_p_value(None, 0.5, [0.1]) is None
    assert bootstrap._paired_p_value(0.5, 0.6, [None, None]) is None


def test_a_derived_value_defined_on_the_full_sample_only_gets_no_bounds():
    # the point values are computed first (one call per run), then the resamples
    calls = {"n": 0}

    def first_only(metrics: bootstrap.Metrics) -> float | None:
        calls["n"] += 1
        return 0.5 if calls["n"] <= 2 else None

    out = bootstrap.paired_bootstrap(
        {"m": bootstrap.rate_statistic(BASE)},
        {"m": bootstrap.rate_statistic(CAND)},
        {"d": first_only},
        n_bootstrap=5,
        seed=1,
    )["d"]
    assert (out["baseline"], out["candidate"], out["delta"]) == (0.5, 0.5, 0.0)
    assert (out["delta_lower"], out["delta_upper"], out["p_value"]) == (None, None, None)


def test_p_value_counts_centred_differences_reaching_the_observed_one():
    # |diffs| = 0.1, 0.3, 0.5: mean 0.3, centred -0.2, 0, 0.2
    assert bootstrap._paired_p_value(0.0, 0.2, [0.1, -0.3, 0.5]) == pytest.approx(2 / 4)
    assert bootstrap._paired_p_value(0.2, 0.0, [0.1, -0.3, 0.5]) == pytest.approx(2 / 4)
    assert bootstrap._paired_p_value(0.0, 0.1, [0.1, None, -0.3, 0.5]) == pytest.approx(2 / 4)
    assert bootstrap._paired_p_value(0.0, 0.0, [0.25, 0.25]) == pytest.approx(3 / 3)
    assert bootstrap._paired_p_value(0.0, 0.21, [0.1, -0.3, 0.5]) == pytest.approx(1 / 4)


def test_runs_over_other_entries_or_metrics_are_refused():
    with pytest.raises(ValueError, match=r"^baseline and candidate must cover the same entries$"):
        bootstrap.paired_bootstrap(
            {"m": bootstrap.rate_statistic([1, 0])}, {"m": bootstrap.rate_statistic([1, 0, 1])}
        )
    with pytest.raises(ValueError, match=r"^baseline and candidate must have the same metrics$"):
        bootstrap.paired_bootstrap(
            {"m": bootstrap.rate_statistic([1])},
            {"m": bootstrap.rate_statistic([1]), "x": bootstrap.rate_statistic([1])},
        )


class _CountingReads:
    """A plugin's statistics that cannot read an empty list of rows (it looks at the first)."""

    def __init__(self) -> None:
        self.reads: list[int] = []

    def read(self, rows: Any, flagged: frozenset[str]) -> np.ndarray | None:
        self.reads.append(len(rows))
        return np.array([[float(rows[0]["v"]), 1.0]] * len(rows))

    def finalize(self, sums: Any) -> float | None:
        return float(sums[0] / sums[1])


def test_a_definition_is_never_asked_to_read_no_rows():
    statistics = _CountingReads()
    definition = MetricDefinition("plugin_value", "plugin value", statistics)
    assert bootstrap.of_definition(definition, []) is None
    assert statistics.reads == []
    found = bootstrap.of_definition(definition, [{"v": 2}, {"v": 5}])
    assert found is not None
    assert statistics.reads == [2]
    assert found.value([4.0, 2.0]) == 2.0


def test_per_entry_statistics_are_float64_whatever_their_input():
    # sacrebleu's BLEU statistics are integers; the rows are the documented float64 table
    statistic = bootstrap.sacre_statistic("bleu", [[4, 3, 2, 1, 4, 3, 2, 1, 4, 4]])
    assert statistic.rows.dtype == np.float64
    assert bootstrap.ratio_statistic([1], [2]).rows.dtype == np.float64


def test_one_entry_is_resampled_as_itself():
    blocks = list(bootstrap._resample_counts(1, 3, 8))
    assert [block.tolist() for block in blocks] == [[[1.0], [1.0], [1.0]]]
    one = bootstrap.confidence_intervals({"r": bootstrap.rate_statistic([True])}, n_bootstrap=5)
    assert (one["r"]["score"], one["r"]["lower"], one["r"]["upper"]) == (1.0, 1.0, 1.0)


def test_a_value_undefined_for_one_run_only_has_no_delta_bounds():
    """A derived value the baseline lacks on the full sample (its first call) but both runs
    have on every resample: the resampled differences exist, yet there is no delta to bound."""
    calls = {"n": 0}

    def missing_for_the_baseline(metrics: bootstrap.Metrics) -> float | None:
        calls["n"] += 1
        return None if calls["n"] == 1 else metrics["m"]

    out = bootstrap.paired_bootstrap(
        {"m": bootstrap.rate_statistic(BASE)},
        {"m": bootstrap.rate_statistic(CAND)},
        {"d": missing_for_the_baseline},
        n_bootstrap=10,
        seed=1,
    )["d"]
    assert calls["n"] == 2 + 2 * 10  # both point values, then both runs' resamples
    assert (out["baseline"], out["candidate"]) == (None, pytest.approx(0.8))
    assert (out["delta"], out["delta_lower"], out["delta_upper"], out["p_value"]) == (
        None,
        None,
        None,
        None,
    )


def test_the_plain_value_helpers_make_the_rows_the_definitions_read_from_records():
    """One way to make per-entry rows: a statistic built from plain values is the one the
    metric's definition reads from records holding those values."""
    pairs = [("a b c d", "a b c d"), ("x y", "x z"), ("", "le chat")]
    records = [
        {"predicted": h, "expected": r, "error": None, "exact_match": h == r, "fst_words": i}
        | {"fst_accepted_words": i // 2}
        for i, (h, r) in enumerate(pairs)
    ]
    for definition in (catalog.CHRF_PLUS_PLUS, catalog.BLEU, catalog.TER):
        family = definition.statistics.family  # type: ignore[attr-defined]
        rows = [sacre.segment_stats(h, r)[family] for h, r in pairs]
        helper = bootstrap.sacre_statistic(family, rows)
        read = bootstrap.of_definition(definition, records)
        assert read is not None
        assert helper.rows.tolist() == read.rows.tolist(), family
        sums = list(helper.rows.sum(axis=0))
        assert helper.value(sums) == read.value(sums) == definition.score(records), family
    words = bootstrap.ratio_statistic([0, 0, 1], [0, 1, 2])
    read = bootstrap.of_definition(fst.FST_ACCEPTANCE, records)
    assert read is not None
    assert words.rows.tolist() == read.rows.tolist() == [[0.0, 0.0], [0.0, 1.0], [1.0, 2.0]]
    exact = bootstrap.rate_statistic([r["exact_match"] for r in records])
    read = bootstrap.of_definition(catalog.EXACT_MATCH, records)
    assert read is not None
    assert exact.rows.tolist() == read.rows.tolist() == [[1.0, 1.0], [0.0, 1.0], [0.0, 1.0]]
    with pytest.raises(ValueError, match=r"^per-entry statistics must be a non-empty table"):
        bootstrap.ratio_statistic([], [])
