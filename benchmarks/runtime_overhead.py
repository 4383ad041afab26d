"""Issue 24 benchmark: what a Node.js method costs against the same method in Python.

The shipped lookup method (one folder, translate.py and translate.js) over FLORES-200
eng->fra devtest's 1,012 English sources, batches of 25, in a plain runner and in the sandbox:
the runner's start (start the process, build the method) and the translation (every batch
there and back), each the best of a few runs. Reported as node/python ratios of the same run.

    python benchmarks/runtime_overhead.py [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import best_of

ROOT = Path(__file__).resolve().parent.parent

from pytest_mteval.corpus import load_corpus  # noqa: E402
from pytest_mteval.methods.loader import load_folder  # noqa: E402
from pytest_mteval.methods.protocol import RunConfig  # noqa: E402
from pytest_mteval.run.runner_client import Launch, ProcessBackend  # noqa: E402
from pytest_mteval.run.runtimes import runner_command  # noqa: E402
from pytest_mteval.run.sandbox import sandbox_launch, sandbox_problem  # noqa: E402

CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"
LOOKUP = (ROOT / "methods" / "lookup").resolve()
BATCH = 25


def launch(runtime: str, sandboxed: bool) -> tuple[Launch, dict[str, Any]]:
    source = load_folder(LOOKUP, load=False, runtime=runtime)
    command = runner_command(source)
    ref = {"kind": "folder", "path": str(LOOKUP), "runtime": runtime,
           "entry_point": source.entry_point}  # fmt: skip
    home = tempfile.mkdtemp(prefix="mteval-bench-")
    env = {"HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin"}
    if sandboxed:
        inside = command.launcher([sys.executable, "-I"], supervised=False) if command else []
        shown = command.shown if command else []
        return sandbox_launch(LOOKUP, shown, [], None, env, inside), ref
    if command is None:
        argv = [sys.executable, "-m", "pytest_mteval.run.runner_main", "--supervised"]
        return Launch(argv, env=env, supervised=True), ref
    return Launch(command.launcher([sys.executable], True), env, str(LOOKUP), supervised=True), ref


def measure(runtime: str, sandboxed: bool, runs: int) -> tuple[float, float]:
    """(best start seconds, best translation seconds)."""
    entries = load_corpus(CORPUS).entries
    config = RunConfig(source_language="en", target_language="crk", batch_size=BATCH)
    starts: list[float] = []

    def run() -> None:
        how, ref = launch(runtime, sandboxed)
        backend = ProcessBackend(how, ref, config)
        started = time.perf_counter()
        backend.start()
        starts.append(time.perf_counter() - started)
        for at in range(0, len(entries), BATCH):
            results, _ = backend.collect(backend.submit(entries[at : at + BATCH], config))
            assert all(r["error"] is None for r in results.values())
        backend.close()

    total = best_of(runs, run)
    return min(starts), total - min(starts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    modes = [False] + ([True] if sandbox_problem() is None else [])
    for sandboxed in modes:
        where = "sandbox" if sandboxed else "plain runner"
        python = measure("python", sandboxed, runs)
        node = measure("node", sandboxed, runs)
        print(f"{where}: start python {python[0] * 1000:.0f} ms, node {node[0] * 1000:.0f} ms "
              f"(node/python {node[0] / python[0]:.2f}x); 1,012 entries python "
              f"{python[1] * 1000:.0f} ms, node {node[1] * 1000:.0f} ms "
              f"(node/python {node[1] / python[1]:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
