"""Issue 26 benchmark: what the installed plugin costs a pytest run that never uses it.

One trivial test, run by pytest in a fresh process with the plugin loaded (no
``--mteval-corpus``) and with ``-p no:mteval``, alternating, best of N each; goal: <= 1.1x.
Both the wall time and the process's CPU time (user + system, less disturbed by other load
on a shared machine) are reported.

    python benchmarks/unused_plugin_cost.py [--runs 7]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL = 1.1


def _pytest(folder: Path, *extra: str) -> tuple[float, float]:
    """Wall and CPU seconds of one pytest process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "test_one.py"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def alternate_unused(runs: int) -> tuple[float, float, float]:
    """Wall and CPU ratios (best with the plugin over best without) and the best wall time
    without it, from ``runs`` alternating rounds (also used by core_throughput.py --floor)."""
    with_plugin: list[tuple[float, float]] = []
    without: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
        for _ in range(runs):  # alternate, so both meet the same machine load
            with_plugin.append(_pytest(folder))
            without.append(_pytest(folder, "-p", "no:mteval"))
    ratios = [min(t[i] for t in with_plugin) / min(t[i] for t in without) for i in (0, 1)]
    return ratios[0], ratios[1], min(t[0] for t in without)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    wall, cpu, floor = alternate_unused(args.runs)
    print(f"one trivial test, best of {args.runs}; -p no:mteval {floor:.3f} s")
    for kind, ratio in (("wall", wall), ("CPU", cpu)):
        verdict = "ok" if ratio <= GOAL else "MISSED"
        print(f"  {kind:4}  plugin, no corpus {ratio:.2f}x -p no:mteval ({verdict})")
    print(f"  goal <= {GOAL}x")


if __name__ == "__main__":
    main()
