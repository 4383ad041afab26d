"""Issue 3 benchmark (a): what the bootstrap confidence intervals add to a 10,120-entry run.

Runs the identity method over FLORES eng->fra devtest repeated ten times (the core benchmark's
corpus), then times, on that run's own records, the part of the run-card assembly that computes
the intervals (chrF++, BLEU, exact match and the composite, 1000 resamples each).

    python benchmarks/ci_overhead.py [--repeat 10]

Prints the interval time as a share of the whole run's wall time (target <= 10 %).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from core_throughput import REPO, build_corpus

from pytest_mteval.metrics.definition import family_stats
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.run_judgement import statistics_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, _ = build_corpus(folder, args.repeat)
        card_path = folder / "card.json"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p"]
        command += ["no:xdist", f"--mteval-corpus={corpus}", f"--mteval-run-card={card_path}"]
        command += [f"--mteval-method={REPO / 'methods' / 'identity'}"]
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=folder)
        run_s = time.perf_counter() - started
        card = json.loads(card_path.read_text(encoding="utf-8"))
    records = card["results"]
    for row in records:  # the statistics the workers computed during the run
        row["stats"] = {family: family_stats(row, family) for family in ("chrf", "bleu")}
    scores, profile = card["scores"], card["scores"]["scoring_profile"]
    started = time.perf_counter()
    flagged = frozenset(card["hallucination"].get("hallucination_entries") or ())
    statistics = statistics_of(records, scores, profile, flagged)
    stats.confidence_intervals(
        statistics, {"composite": partial(scoring.composite, profile=profile)}
    )
    ci_s = time.perf_counter() - started
    print(f"entries: {len(records)}")
    print(f"whole pytest run (-n 0, identity): {run_s:.2f} s")
    print(f"confidence intervals (4 metrics x 1000 resamples): {ci_s:.2f} s")
    print(f"share of the run: {ci_s / run_s:.1%} (target <= 10%)")


if __name__ == "__main__":
    main()
