"""How much the bootstrap intervals cost next to scoring the corpus once.

FLORES-200 eng->fra devtest repeated ten times (10,120 entries), each hypothesis the English
source (an identity "translation"). Per-segment statistics are computed first, as the workers
do during a run; then we time, on the controller's side:

- sacrebleu's corpus chrF++ once (Python API), and its CLI scoring chrF++, BLEU and TER;
- ``stats.confidence_intervals`` for chrF++, BLEU, exact match and the composite
  (1000 resamples, 95 %);
- ``stats.paired_bootstrap`` of the run against itself (the baseline gate's cost).

Target (issue 3, item 14a): the intervals add at most 10 % to a run whose total is about 1.5x
the sacrebleu CLI time. Usage: ``python benchmarks/bootstrap_speed.py [--repeat 10]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from sacrebleu.metrics.chrf import CHRF

from pytest_mteval.metrics.match import exact_match
from pytest_mteval.metrics.sacre import segment_stats
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"


def load(repeat: int) -> tuple[list[str], list[str]]:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    sources = [e["source"] for e in entries] * repeat
    references = [e["reference"] for e in entries] * repeat
    return sources, references


def timed(fn: Callable[[], Any], runs: int = 3) -> tuple[float, Any]:
    """Best of ``runs`` wall times, and the last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def cli_seconds(hyps: list[str], refs: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = Path(tmp, "ref.txt"), Path(tmp, "hyp.txt")
        ref.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
        hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
        command = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp)]
        command += ["-m", "chrf", "bleu", "ter", "--chrf-word-order", "2", "-f", "json"]

        def run() -> None:
            subprocess.run(command, check=True, capture_output=True)

        seconds, _ = timed(run, runs=1)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="copies of the 1012 sentences")
    parser.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES)
    args = parser.parse_args()

    hyps, refs = load(args.repeat)
    n = len(hyps)
    start = time.perf_counter()
    rows = [segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
    worker_seconds = time.perf_counter() - start

    statistics = {
        "chrf_plus_plus": stats.sacre_statistic("chrf", [row["chrf"] for row in rows]),
        "bleu": stats.sacre_statistic("bleu", [row["bleu"] for row in rows]),
        "exact_match_rate": stats.rate_statistic(
            [exact_match(h, r) for h, r in zip(hyps, refs, strict=True)]
        ),
    }
    derived: dict[str, stats.Derived] = {"composite": partial(scoring.composite, profile="B")}

    chrf_once, score = timed(lambda: CHRF(word_order=2).corpus_score(hyps, [refs]).score)
    cli = cli_seconds(hyps, refs)
    ci_seconds, intervals = timed(
        lambda: stats.confidence_intervals(statistics, derived, n_bootstrap=args.resamples)
    )
    paired_seconds, _ = timed(
        lambda: stats.paired_bootstrap(statistics, statistics, derived, args.resamples), runs=1
    )

    run_total = 1.5 * cli
    print(f"entries                                   {n}")
    print(f"per-segment statistics (workers' share)   {worker_seconds:8.3f} s")
    print(f"sacrebleu corpus chrF++ once (API)        {chrf_once:8.3f} s   chrF++ = {score:.4f}")
    print(f"sacrebleu CLI chrF++ + BLEU + TER         {cli:8.3f} s")
    print(
        f"confidence intervals x{args.resamples} (4 metrics)   {ci_seconds:8.3f} s"
        f"   = {ci_seconds / chrf_once:.2f}x one chrF++"
        f", {100 * ci_seconds / run_total:.1f} % of a run of 1.5x the CLI"
    )
    print(f"paired bootstrap x{args.resamples} (4 metrics)     {paired_seconds:8.3f} s")
    for name, interval in intervals.items():
        bounds = f"[{interval['lower']:.4f}, {interval['upper']:.4f}]"
        print(f"  {name:18s} {interval['score']:.4f} {bounds}")


if __name__ == "__main__":
    main()
