"""The rule behind the summary's "-n slowed this run" line (reports/parallel_advice.py),
checked against real runs: pytest's serial per-item cost, and the serial estimate a run under
``-n 2`` makes of itself against the serial run actually timed in the same invocation.

    python benchmarks/parallel_rule.py [--entries 10120] [--burn-entries 2024] [--runs 2]

A probe plugin (``-p``) on the controller records what the plugin's own timing records: the
span from configure to the end of the test loop, the sum of the items' setup/call/teardown
durations, and the items. For a serial run, (span - durations) / items is pytest's own cost
per entry item (``SERIAL_ITEM_COST_S``); for a ``-n 2`` run, the estimate (durations + items x
that cost) is printed beside the serial span measured, and whether the line would show.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from core_throughput import build_corpus, pytest_command
from floor_targets import write_burn_method

from pytest_mteval.reports.parallel_advice import SERIAL_ITEM_COST_S, ParallelRun

_PROBE = """import json, os, time


class _Probe:
    def __init__(self):
        self.started, self.item_s, self.items = time.perf_counter(), 0.0, 0

    def pytest_runtest_logreport(self, report):
        self.item_s += report.duration
        self.items += report.when == "call"

    def pytest_sessionfinish(self):
        span = time.perf_counter() - self.started
        out = {"span_s": span, "item_s": self.item_s, "items": self.items}
        with open(os.environ["MTEVAL_PROBE_OUT"], "w") as f:
            json.dump(out, f)


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Probe(), "mteval-timing-probe")
"""


def probed(folder: Path, command: list[str]) -> dict[str, float]:
    out = folder / "probe.json"
    env = {**os.environ, "MTEVAL_PROBE_OUT": str(out)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [*command, "-p", "timing_probe"], cwd=folder, env=env, check=True, capture_output=True
    )
    found: dict[str, float] = json.loads(out.read_text())
    return found


def check(folder: Path, label: str, corpus: Path, method: Path | None, runs: int) -> None:
    def command(workers: int) -> list[str]:
        return pytest_command(folder, corpus, workers, *([method] if method else []))

    serial, parallel = [], []
    for _ in range(runs):  # alternating; the fastest of each
        serial.append(probed(folder, command(0)))
        parallel.append(probed(folder, command(2)))
    s = min(serial, key=lambda r: r["span_s"])
    p = min(parallel, key=lambda r: r["span_s"])
    cost = (s["span_s"] - s["item_s"]) / s["items"]
    run = ParallelRun(2, p["span_s"], p["item_s"], int(p["items"]))
    print(
        f"{label}: serial {s['span_s']:.2f} s, pytest's own cost {1000 * cost:.3f} ms/item "
        f"(rule uses {1000 * SERIAL_ITEM_COST_S:.3f}); -n 2 {p['span_s']:.2f} s, its serial "
        f"estimate {run.serial_estimate_s:.2f} s; line shown: {run.slower_than_serial}, "
        f"right: {run.slower_than_serial == (p['span_s'] > s['span_s'])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10120)
    parser.add_argument("--burn-entries", type=int, default=2024)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "timing_probe.py").write_text(_PROBE, encoding="utf-8")
        corpus, _ = build_corpus(folder, args.entries)
        check(folder, f"identity, {args.entries} entries", corpus, None, args.runs)
        burn = write_burn_method(folder)
        corpus, _ = build_corpus(folder, args.burn_entries)
        check(folder, f"5 ms CPU burn, {args.burn_entries} entries", corpus, burn, args.runs)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
