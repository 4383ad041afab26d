"""Issue 3 benchmark (b): an FST-heavy run is faster with two xdist workers.

The English->Plains Cree vocabulary corpus, repeated to a few thousand entries (ids made
unique), evaluated with the replay method answering each entry with real Cree words: its own
reference headword followed by the other entries' headwords of its batch, so every entry
sends several real Cree words through the shipped strict analyzer.

    python benchmarks/fst_parallel.py [--repeat 8]

Prints the -n 0 and -n 2 wall times and the speed-up (target >= 1.6).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CRK = REPO / "corpora" / "eng-crk-morphodict-vocab.json"


def build(folder: Path, repeat: int) -> tuple[Path, Path]:
    data = json.loads(CRK.read_text(encoding="utf-8"))
    base = data["entries"]
    entries = [{**e, "id": copy * 10_000 + int(e["id"])} for copy in range(repeat) for e in base]
    data["entries"] = entries
    data["dataset"]["language_resources"] = str(CRK.parent / data["dataset"]["language_resources"])
    corpus = folder / "crk-repeated.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    predictions = folder / "cree-words.jsonl"
    with predictions.open("w", encoding="utf-8") as out:
        for i, entry in enumerate(entries):
            words = [entries[(i + k * 37) % len(entries)]["reference"] for k in range(6)]
            out.write(json.dumps({"id": entry["id"], "predicted": " ".join(words)}) + "\n")
    return corpus, predictions


def timed_run(folder: Path, corpus: Path, predictions: Path, workers: list[str]) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-method={REPO / 'methods' / 'replay'}"]
    command += [f"--mteval-method-arg=predictions={predictions}", *workers]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=folder)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, predictions = build(folder, args.repeat)
        serial = timed_run(folder, corpus, predictions, ["-p", "no:xdist"])
        parallel = timed_run(folder, corpus, predictions, ["-n", "2"])
    entries = 547 * args.repeat
    print(f"entries: {entries}")
    print(f"-n 0: {serial:.2f} s    -n 2: {parallel:.2f} s")
    print(f"speed-up: {serial / parallel:.2f}x (target >= 1.6)")


if __name__ == "__main__":
    main()
