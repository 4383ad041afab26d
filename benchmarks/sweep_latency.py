"""Wall time of a sweep that waits on an LLM endpoint, against the ideal (issue 12).

A sweep of ``--models`` x ``--temperatures`` raw-llm runs over ``--entries`` FLORES-200 devtest
entries goes to the loopback chat-completions server (its own process) with ``--latency``
seconds per request and the sweep's ``--concurrency``. The ideal wall time is
total requests x latency / concurrency. Two ratios are printed:

- ``wall / ideal``: the whole sweep, CPU work included (scoring, 2 x runs pytest start-ups);
- ``(wall - wall at 0 latency) / ideal``: the time the latency adds, against what a perfect
  scheduler would add; the goal is <= 1.3.

    python benchmarks/sweep_latency.py [--models 4] [--temperatures 3] [--entries 1012]
                                       [--latency 0.05] [--concurrency 64]

The issue's full size is ``--models 4 --temperatures 3 --entries 1012`` (12 runs).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from llm_latency import served, write_corpus

REPO = Path(__file__).resolve().parents[1]


def write_sweep(folder: Path, corpus: Path, url: str, args: argparse.Namespace) -> Path:
    models = [f"bench/model-{n}" for n in range(args.models)]
    temperatures = [round(0.3 * n, 1) for n in range(args.temperatures)]
    text = f"""
[sweep]
corpus = "{corpus}"
method = "{REPO / "methods" / "raw-llm"}"
concurrency = {args.concurrency}
runs_at_once = {args.models * args.temperatures}
output = "out"

[axes]
model = {json.dumps(models)}
temperature = {json.dumps(temperatures)}

[method_args]
base_url = "{url}"
api_key_env = ""
"""
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def timed_sweep(latency: float, args: argparse.Namespace) -> float:
    with tempfile.TemporaryDirectory() as tmp, served(latency, "process") as url:
        folder = Path(tmp)
        sweep = write_sweep(folder, write_corpus(folder, args.entries), url, args)
        command = [sys.executable, "-m", "pytest", f"--mteval-sweep={sweep}", "-q"]
        command += ["--mteval-no-cache", "-p", "no:cacheprovider"]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"sweep failed ({done.returncode}):\n{done.stdout[-2000:]}")
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--temperatures", type=int, default=3)
    parser.add_argument("--entries", type=int, default=1012)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    runs = args.models * args.temperatures
    ideal = runs * args.entries * args.latency / args.concurrency
    floor = timed_sweep(0.0, args)
    wall = timed_sweep(args.latency, args)
    print(
        f"{runs} runs x {args.entries} entries, {args.latency * 1000:.0f} ms per request, "
        f"concurrency {args.concurrency}"
    )
    print(f"ideal (requests x latency / concurrency)  {ideal:8.2f} s")
    print(f"sweep at 0 ms latency (CPU floor)         {floor:8.2f} s")
    print(f"sweep at {args.latency * 1000:.0f} ms latency                    {wall:8.2f} s")
    print(f"wall / ideal                              {wall / ideal:8.2f}")
    print(f"(wall - floor) / ideal                    {(wall - floor) / ideal:8.2f}  (goal <= 1.3)")


if __name__ == "__main__":
    main()
