"""Issue 2 benchmark: a 10,120-entry run with the identity method, against sacrebleu's CLI
scoring chrF++, BLEU and TER on the same pairs, measured in the same run.

    python benchmarks/core_throughput.py [--workers 0] [--repeat 10]

Prints wall times, the ratio (target <= 1.5 at -n 0) and the pytest run's peak RSS
(target < 400 MB).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FLORES = REPO / "corpora" / "eng-fra-flores-devtest.json"


def build_corpus(folder: Path, repeat: int) -> tuple[Path, list[dict[str, Any]]]:
    """FLORES eng->fra devtest repeated, ids made unique."""
    data = json.loads(FLORES.read_text(encoding="utf-8"))
    entries = [
        {**entry, "id": copy * len(data["entries"]) + int(entry["id"])}
        for copy in range(repeat)
        for entry in data["entries"]
    ]
    data["entries"] = entries
    data["dataset"]["id"] += f"-x{repeat}"
    path = folder / "flores-repeated.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, entries


def time_sacrebleu_cli(folder: Path, entries: list[dict[str, Any]]) -> float:
    hyp, ref = folder / "hyp.txt", folder / "ref.txt"
    hyp.write_text("\n".join(e["source"] for e in entries) + "\n", encoding="utf-8")
    ref.write_text("\n".join(e["reference"] for e in entries) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp)]
    command += ["-m", "bleu", "chrf", "ter", "--chrf-word-order", "2", "-b"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def time_pytest_run(folder: Path, corpus: Path, workers: int) -> tuple[float, float]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-method={REPO / 'methods' / 'identity'}"]
    command += [f"--mteval-run-card={folder / f'card-n{workers}.json'}"]
    command += ["-n", str(workers)] if workers else ["-p", "no:xdist"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=folder)
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    return elapsed, peak_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, entries = build_corpus(folder, args.repeat)
        # pytest first: RUSAGE_CHILDREN's peak is over all children waited for so far
        ours, peak_mb = time_pytest_run(folder, corpus, args.workers)
        reference = time_sacrebleu_cli(folder, entries)
    print(f"entries: {len(entries)}")
    print(f"sacrebleu CLI (chrF++, BLEU, TER): {reference:.2f} s")
    print(f"pytest -n {args.workers} (identity, whole run): {ours:.2f} s")
    print(f"ratio: {ours / reference:.2f} (target <= 1.5)")
    print(f"peak RSS of the pytest run: {peak_mb:.0f} MB (target < 400)")


if __name__ == "__main__":
    main()
