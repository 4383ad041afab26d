"""Bootstrap intervals and paired significance, checked against sacrebleu's CLI on real outputs.

The runs in tests/data/upstream-runs/ are real LLM translations (see SOURCE.md there). With the
same seed our resampled indexes are sacrebleu's, so the figures must agree to the 4 decimals
the CLI prints (tolerance 2e-4, i.e. rounding only). The composite and exact-match intervals
have no CLI to compare with; they are checked against a brute-force bootstrap that re-scores
every resample from its text with sacrebleu's Python API.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from pytest_mteval.metrics.match import exact_match
from pytest_mteval.metrics.sacre import segment_stats
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring

RUNS = Path(__file__).resolve().parent / "data" / "upstream-runs"
CLI_TOLERANCE = 2e-4  # the CLI prints 4 decimals


def _run_files() -> list[Path]:
    files = sorted(RUNS.glob("*_report.json"))
    assert files, f"no upstream run reports in {RUNS}"
    return files


def _load(path: Path) -> dict[str, object]:
    """Hypotheses, references and ids as sacrebleu's CLI would read them (one line each)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    entries = report["entries"]
    return {
        "corpus": report["config"]["corpus_path"].rsplit("/", 1)[-1],
        "ids": [e["id"] for e in entries],
        "hyps": [(e["predicted"] or "").rstrip() for e in entries],
        "refs": [e["expected"].rstrip() for e in entries],
    }


def _statistics(run: dict[str, object]) -> dict[str, stats.Statistic]:
    hyps, refs = run["hyps"], run["refs"]
    rows = [segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
    return {
        "chrf_plus_plus": stats.sacre_statistic("chrf", [row["chrf"] for row in rows]),
        "bleu": stats.sacre_statistic("bleu", [row["bleu"] for row in rows]),
        "exact_match_rate": stats.rate_statistic(
            [exact_match(h, r) for h, r in zip(hyps, refs, strict=True)]
        ),
    }


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _sacrebleu(inputs: list[str], options: list[str], seed: int) -> str:
    env = {**os.environ, "SACREBLEU_SEED": str(seed)}
    done = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *inputs, *options],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("seed", [stats.DEFAULT_SEED, 2024])
@pytest.mark.parametrize("path", _run_files(), ids=lambda p: p.name[:40])
def test_intervals_agree_with_sacrebleu_confidence(path, seed, tmp_path):
    run = _load(path)
    ref = _write_lines(tmp_path / "ref.txt", run["refs"])
    hyp = _write_lines(tmp_path / "hyp.txt", run["hyps"])
    out = _sacrebleu(
        [str(ref), "-i", str(hyp), "-m", "chrf", "bleu", "--chrf-word-order", "2"],
        ["--confidence", "-w", "4", "-f", "json"],
        seed,
    )
    cli = {item["name"]: item for item in json.loads(out)}
    statistics = _statistics(run)
    ours = stats.confidence_intervals(statistics, seed=seed)
    samples = stats.bootstrap_samples(statistics, seed=seed)
    for name, cli_name in [("chrf_plus_plus", "chrF2++"), ("bleu", "BLEU")]:
        interval = ours[name]
        assert interval["n_bootstrap"] == 1000
        assert interval["seed"] == seed
        assert interval["confidence"] == 0.95
        assert interval["score"] == pytest.approx(cli[cli_name]["score"], abs=CLI_TOLERANCE)
        if "confidence_mean" not in cli[cli_name]:
            # sacrebleu prints no interval when every resample scores 0 (BLEU on Japanese
            # without a Japanese tokenizer); ours is then [0, 0].
            assert interval["lower"] == interval["upper"] == 0.0
            continue
        # sacrebleu prints the bootstrap mean and the half-width of the same percentile interval.
        half_width = (interval["upper"] - interval["lower"]) / 2
        assert half_width == pytest.approx(cli[cli_name]["confidence_var"], abs=CLI_TOLERANCE)
        assert np.mean(samples[name]) == pytest.approx(
            cli[cli_name]["confidence_mean"], abs=CLI_TOLERANCE
        )
        assert interval["lower"] <= interval["score"] <= interval["upper"]


def _same_corpus_pairs() -> list[tuple[Path, Path]]:
    runs = {path: _load(path) for path in _run_files()}
    paths = list(runs)
    pairs = [
        pytest.param(a, b, id=f"{_model(a)}-vs-{_model(b)}")
        for i, a in enumerate(paths)
        for b in paths[i + 1 :]
        if runs[a]["ids"] == runs[b]["ids"] and runs[a]["refs"] == runs[b]["refs"]
    ]
    assert pairs, "the upstream runs must include two systems on the same corpus"
    return pairs


def _model(path: Path) -> str:
    return path.name.split("_")[3]


@pytest.mark.parametrize(("base_path", "cand_path"), _same_corpus_pairs())
def test_paired_p_values_agree_with_sacrebleu_paired_bs(base_path, cand_path, tmp_path):
    base, cand = _load(base_path), _load(cand_path)
    ref = _write_lines(tmp_path / "ref.txt", base["refs"])
    hyp_base = _write_lines(tmp_path / "base.txt", base["hyps"])
    hyp_cand = _write_lines(tmp_path / "cand.txt", cand["hyps"])
    out = _sacrebleu(
        [str(ref), "-i", str(hyp_base), str(hyp_cand), "-m", "chrf", "bleu"],
        ["--chrf-word-order", "2", "--paired-bs", "-w", "4", "-f", "text"],
        stats.DEFAULT_SEED,
    )
    cli_p = [float(p) for p in re.findall(r"\(p = ([0-9.]+)\)", out)]
    assert len(cli_p) == 2, out  # chrF2++ then BLEU, for the one candidate
    ours = stats.paired_bootstrap(_statistics(base), _statistics(cand))
    assert ours["chrf_plus_plus"]["p_value"] == pytest.approx(cli_p[0], abs=CLI_TOLERANCE)
    assert ours["bleu"]["p_value"] == pytest.approx(cli_p[1], abs=CLI_TOLERANCE)
    for result in ours.values():
        assert result["delta"] == pytest.approx(result["candidate"] - result["baseline"])
        assert result["delta_lower"] <= result["delta"] <= result["delta_upper"]


def test_a_run_against_itself_is_not_significant():
    run = _load(_run_files()[0])
    statistics = _statistics(run)
    derived = {"composite": partial(scoring.composite, profile="B")}
    result = stats.paired_bootstrap(statistics, statistics, derived)
    for name in ["chrf_plus_plus", "bleu", "exact_match_rate", "composite"]:
        assert result[name]["delta"] == 0.0
        assert result[name]["p_value"] == 1.0  # sacrebleu says 0.001 here, which is wrong


def test_composite_and_exact_match_samples_equal_a_brute_force_bootstrap():
    run = _load(_run_files()[0])
    hyps, refs = run["hyps"], run["refs"]
    n, resamples, seed = len(hyps), 30, 777
    derived = {"composite": partial(scoring.composite, profile="B")}
    samples = stats.bootstrap_samples(_statistics(run), derived, resamples, seed)
    # Independent: draw the indexes, re-score each resample's text, weight by hand.
    indexes = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    chrf = CHRF(word_order=2)
    matched = [exact_match(h, t) for h, t in zip(hyps, refs, strict=True)]
    for r, row in enumerate(indexes):
        chrf_pp = chrf.corpus_score([hyps[i] for i in row], [[refs[i] for i in row]]).score
        em = sum(matched[i] for i in row) / n
        assert samples["chrf_plus_plus"][r] == pytest.approx(chrf_pp, abs=1e-9)
        assert samples["exact_match_rate"][r] == pytest.approx(em)
        by_hand = (0.25 * chrf_pp / 100 + 0.10 * em) / (0.25 + 0.10)
        assert samples["composite"][r] == pytest.approx(by_hand)


def test_paired_exact_match_and_composite_equal_a_brute_force_paired_bootstrap():
    (pair,) = [p for p in _same_corpus_pairs() if p.id == "openai-vs-deepseek"]
    base, cand = _load(pair.values[0]), _load(pair.values[1])
    refs, n, resamples, seed = base["refs"], len(base["refs"]), 200, 99
    derived = {"composite": partial(scoring.composite, profile="B")}
    ours = stats.paired_bootstrap(_statistics(base), _statistics(cand), derived, resamples, seed)
    # Independent: score both systems by hand on the same drawn indexes (Koehn's test as
    # sacrebleu implements it, with ties counted).
    chrf = CHRF(word_order=2)
    indexes = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)

    def scores(hyps: list[str], rows) -> tuple[list[float], list[float]]:
        matched = [exact_match(h, t) for h, t in zip(hyps, refs, strict=True)]
        em, comp = [], []
        for row in rows:
            rate = sum(matched[i] for i in row) / len(row)
            chrf_pp = chrf.corpus_score([hyps[i] for i in row], [[refs[i] for i in row]]).score
            em.append(rate)
            comp.append((0.25 * chrf_pp / 100 + 0.10 * rate) / 0.35)
        return em, comp

    everything = [range(n)]
    point_base, point_cand = scores(base["hyps"], everything), scores(cand["hyps"], everything)
    sample_base, sample_cand = scores(base["hyps"], indexes), scores(cand["hyps"], indexes)
    for k, name in enumerate(["exact_match_rate", "composite"]):
        observed = abs(point_cand[k][0] - point_base[k][0])
        diffs = np.abs(np.array(sample_cand[k]) - np.array(sample_base[k]))
        expected_p = (np.sum(diffs - diffs.mean() >= observed) + 1) / (resamples + 1)
        assert ours[name]["p_value"] == pytest.approx(expected_p)
        assert abs(ours[name]["delta"]) == pytest.approx(observed)


def test_composite_interval_brackets_the_point_value():
    run = _load(_run_files()[0])
    derived = {"composite": partial(scoring.composite, profile="B")}
    interval = stats.confidence_intervals(_statistics(run), derived)["composite"]
    assert 0.0 <= interval["lower"] <= interval["score"] <= interval["upper"] <= 1.0
    assert interval["upper"] > interval["lower"]


def test_percentile_positions_are_sacrebleus():
    values = [float(v) for v in range(1000)]
    assert stats.percentile_bounds(values, 0.95) == (25.0, 974.0)  # sacrebleu: n//40, n-n//40-1
    assert stats.percentile_bounds(values[::-1], 0.90) == (50.0, 949.0)
    assert stats.percentile_bounds([None, None]) == (None, None)
    with pytest.raises(ValueError, match="confidence"):
        stats.percentile_bounds(values, 1.0)


def test_rates_ignore_entries_without_a_value():
    rate = stats.rate_statistic([True, False, None, True])
    assert stats.point_values({"r": rate}, {})["r"] == pytest.approx(2 / 3)
    interval = stats.confidence_intervals({"r": rate}, n_bootstrap=50)["r"]
    json.dumps(interval)  # builtin types only, ready for the run card
    assert all(type(interval[k]) is float for k in ["score", "lower", "upper"])
    assert stats.point_values({"r": stats.rate_statistic([None, None])}, {})["r"] is None


def test_ratio_is_sum_over_sum_not_mean_of_ratios():
    words = stats.ratio_statistic([1.0, 9.0], [2.0, 10.0])
    assert stats.point_values({"w": words}, {})["w"] == pytest.approx(10 / 12)


def test_undefined_value_has_no_interval_and_sparse_value_skips_empty_resamples():
    undefined = stats.rate_statistic([None] * 20)
    sparse = stats.ratio_statistic([1.0] + [0.0] * 19, [1.0] + [0.0] * 19)
    out = stats.confidence_intervals({"u": undefined, "s": sparse}, n_bootstrap=200)
    assert out["u"]["score"] is None
    assert out["u"]["lower"] is None
    assert out["u"]["upper"] is None
    # "s" is defined only in resamples that drew entry 0; its value is then always 1.0.
    assert out["s"] == {**out["s"], "score": 1.0, "lower": 1.0, "upper": 1.0}


def test_statistics_over_different_entries_are_refused():
    with pytest.raises(ValueError, match="same entries"):
        stats.bootstrap_samples(
            {"a": stats.rate_statistic([True, False]), "b": stats.rate_statistic([True])}
        )
    with pytest.raises(ValueError, match="same metrics"):
        stats.paired_bootstrap(
            {"a": stats.rate_statistic([True])}, {"b": stats.rate_statistic([True])}
        )


def test_the_seed_makes_intervals_reproducible_and_matters():
    statistics = {"r": stats.rate_statistic([i % 3 == 0 for i in range(60)])}
    first = stats.confidence_intervals(statistics, seed=1)
    assert stats.confidence_intervals(statistics, seed=1) == first
    assert stats.bootstrap_samples(statistics, seed=1) != stats.bootstrap_samples(
        statistics, seed=2
    )
