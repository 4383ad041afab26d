"""Issue 13 benchmark: what ``--mteval-html`` adds to a run, and what a leaderboard costs.

Runs the identity method over FLORES eng->fra devtest repeated ``--repeat`` times (1012
entries each), once without and once with ``--mteval-html``, and compares the wall times.
Then builds the leaderboard page of that card and times it against the card's verification
alone (the leaderboard verifies every card it ranks).

    python benchmarks/html_report_overhead.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from core_throughput import REPO, build_corpus

from pytest_mteval.cards import runcard
from pytest_mteval.reports import leaderboard, leaderboard_page


def run(folder: Path, corpus: Path, card: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-run-card={card}", *extra]
    command += [f"--mteval-method={REPO / 'methods' / 'identity'}"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=folder)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, entries = build_corpus(folder, args.repeat)
        plain_s = run(folder, corpus, folder / "plain.json")
        page = folder / "report.html"
        html_s = run(folder, corpus, folder / "html.json", f"--mteval-html={page}")
        size = page.stat().st_size
        card_path = folder / "html.json"
        started = time.perf_counter()
        runcard.verify(runcard.load(card_path), card_path)
        verify_s = time.perf_counter() - started
        started = time.perf_counter()
        leaderboard_page.html(leaderboard.build([card_path]))
        board_s = time.perf_counter() - started
    print(f"entries: {len(entries)}")
    print(f"run without --mteval-html: {plain_s:.2f} s; with: {html_s:.2f} s")
    print(f"ratio with/without: {html_s / plain_s:.3f}; report page {size / 1e6:.1f} MB")
    print(f"leaderboard page of the card / verifying the card alone: {board_s / verify_s:.1f}")


if __name__ == "__main__":
    main()
