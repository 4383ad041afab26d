"""Issue 2 and issue 8 benchmark: whole pytest runs with the identity method against sacrebleu's
CLI scoring chrF++, BLEU and TER on the same pairs, measured in the same run.

    python benchmarks/core_throughput.py                  # -n 0 and -n 2, 10,120 entries
    python benchmarks/core_throughput.py --workers 0      # -n 0 only
    python benchmarks/core_throughput.py --memory-100k    # also one 101,200-entry -n 0 run
    python benchmarks/core_throughput.py --upstream CORPUS --harness-command "CMD"
    python benchmarks/core_throughput.py --floor          # issue 26's targets (below)
    python benchmarks/core_throughput.py --floor --quick  # the same at 2,024 entries
    python benchmarks/core_throughput.py --floor --entries 5060 --runs 2

Prints every ratio of issue 8 with its target: -n 0 <= 1.5x the CLI; -n 2 <= 1.0x the CLI and
at least 1.4x faster than -n 0; peak RSS <= 400 MB at 10 k entries and <= 1 GB at 100 k; a
200-entry corpus in the reference harness's shape >= 50x faster than that harness's run.

The CLI is timed before and after the pytest runs and their mean is the reference, since the
machine's load drifts. CPU seconds (user + system, all processes of a run) are printed too:
on a loaded machine they say more about the work done than wall time does.

``--floor`` measures issue 26's targets instead, each against its floor timed in the same
invocation, and prints each with ok or MISSED (benchmarks/floor_targets.py says which): by
default at 10,120 entries (101,200 for memory), best of 3 alternating runs; ``--quick`` runs
2,024 entries (20,240 for memory), best of 2; ``--entries N`` sets the size (memory at 10 N),
``--runs`` the rounds. The first line says which size was run.

Bytecode is written and a collect-only run warms it before anything is timed (this tool's
environment may set PYTHONDONTWRITEBYTECODE, and sacrebleu's own bytecode is installed), so
both sides start as an installed package does.

The reference harness (gamedaysuits/gds-mt-eval-harness) is not a dependency. Where it is
installed, pass the command of its passthrough run over the same corpus, and it is timed in
this run, for instance

    --upstream datasets/curated/eng-arb-dev-v1.json \\
    --harness-command "mt-eval run --corpus eng-arb-dev-v1 -m passthrough -n bench"

(whatever that harness's passthrough method is called in the installed version); or give a
time measured by hand with ``--harness-seconds``. Without either, the whole-process time of our
run is printed alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FLORES = REPO / "corpora" / "eng-fra-flores-devtest.json"
IDENTITY = REPO / "methods" / "identity"
FLORES_SIZE = 1012

#: Runs a command, then prints the peak RSS (KiB) of its largest process and the CPU seconds
#: of the command and every descendant it waited for.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(use.ru_maxrss, use.ru_utime + use.ru_stime)\n"
    "sys.exit(code)\n"
)


@dataclass
class Measured:
    wall_s: float
    cpu_s: float
    peak_mb: float
    busy_s: float = float("nan")  # the machine's, all processes (machine_busy_s)


def machine_busy_s() -> float:
    """CPU seconds every core of the machine has spent busy since boot (``/proc/stat``; NaN
    elsewhere). Unlike a process tree's rusage it counts a sandboxed runner's work too, and
    the machine's other load: measure on a quiet machine."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return float("nan")
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def build_corpus(folder: Path, count: int) -> tuple[Path, list[dict[str, Any]]]:
    """``count`` entries of FLORES eng->fra devtest, repeated as needed, ids made unique."""
    data = json.loads(FLORES.read_text(encoding="utf-8"))
    size = len(data["entries"])
    entries = [
        {**entry, "id": copy * size + int(entry["id"])}
        for copy in range(-(-count // size))
        for entry in data["entries"]
    ][:count]
    data["entries"] = entries
    data["dataset"]["id"] += f"-{count}"
    path = folder / f"flores-{count}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, entries


def measure(command: list[str], cwd: Path) -> Measured:
    """Wall time, CPU time and peak RSS of one command (run through a measuring parent)."""
    started, busy = time.perf_counter(), machine_busy_s()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )
    wall, busy = time.perf_counter() - started, machine_busy_s() - busy
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {shlex.join(command)}\n{done.stderr[-2000:]}")
    peak_kib, cpu = done.stdout.split()
    return Measured(wall, float(cpu), int(peak_kib) / 1024, busy)


def sacrebleu_command(folder: Path, entries: list[dict[str, Any]]) -> list[str]:
    hyp, ref = folder / "hyp.txt", folder / "ref.txt"
    hyp.write_text("\n".join(e["source"] for e in entries) + "\n", encoding="utf-8")
    ref.write_text("\n".join(e["reference"] for e in entries) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp)]
    return [*command, "-m", "bleu", "chrf", "ter", "--chrf-word-order", "2", "-b"]


def pytest_command(folder: Path, corpus: Path, workers: int, method: Path = IDENTITY) -> list[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-method={method}"]
    command += [f"--mteval-run-card={folder / f'card-{corpus.stem}-n{workers}.json'}"]
    return command + (["-n", str(workers)] if workers else ["-p", "no:xdist"])


def empty_tests_command(folder: Path, count: int, workers: int) -> list[str]:
    test = folder / "test_empty.py"
    test.write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({count}))\n"
        "def test_empty(i):\n    pass\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)]
    return command + (["-n", str(workers)] if workers else ["-p", "no:xdist"])


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def throughput(folder: Path, workers: list[int], repeat: int) -> None:
    corpus, entries = build_corpus(folder, repeat * FLORES_SIZE)
    cli = sacrebleu_command(folder, entries)
    measure([*pytest_command(folder, corpus, 0), "--collect-only"], folder)  # bytecode
    before = measure(cli, folder)
    runs = {n: measure(pytest_command(folder, corpus, n), folder) for n in workers}
    after = measure(cli, folder)
    reference = (before.wall_s + after.wall_s) / 2
    reference_cpu = (before.cpu_s + after.cpu_s) / 2
    print(f"entries: {len(entries)}")
    print(
        f"sacrebleu CLI (chrF++, BLEU, TER): {before.wall_s:.2f} s before, "
        f"{after.wall_s:.2f} s after the runs (CPU {reference_cpu:.2f} s)"
    )
    targets = {0: 1.5, 2: 1.0}
    for n, run in runs.items():
        ratio = run.wall_s / reference
        target = targets.get(n)
        aim = f" (target <= {target}: {verdict(ratio <= target)})" if target else ""
        print(
            f"pytest -n {n}: {run.wall_s:.2f} s, ratio to the CLI {ratio:.2f}{aim}; "
            f"CPU {run.cpu_s:.2f} s ({run.cpu_s / reference_cpu:.2f}x the CLI's); "
            f"peak RSS {run.peak_mb:.0f} MB (largest process)"
        )
    if 0 in runs and 2 in runs:
        speedup = runs[0].wall_s / runs[2].wall_s
        print(f"-n 2 speed-up over -n 0: {speedup:.2f}x (target >= 1.4: {verdict(speedup >= 1.4)})")
    if 0 in runs:
        peak = runs[0].peak_mb
        print(
            f"peak RSS at {len(entries)} entries (-n 0): {peak:.0f} MB (target <= 400: "
            f"{verdict(peak <= 400)})"
        )


def memory_100k(folder: Path) -> None:
    """One -n 0 run over 101,200 entries: its peak RSS (heavy: a few minutes)."""
    corpus, entries = build_corpus(folder, 100 * FLORES_SIZE)
    run = measure(pytest_command(folder, corpus, 0), folder)
    print(
        f"peak RSS at {len(entries)} entries (-n 0): {run.peak_mb:.0f} MB "
        f"(target <= 1024: {verdict(run.peak_mb <= 1024)}); wall {run.wall_s:.1f} s"
    )


def upstream(
    folder: Path, corpus: Path, harness_command: str | None, seconds: float | None
) -> None:
    """Our whole process over a corpus in the reference harness's shape (identity method)."""
    count = len(json.loads(corpus.read_text(encoding="utf-8"))["entries"])
    measure([*pytest_command(folder, corpus.resolve(), 0), "--collect-only"], folder)
    ours = measure(pytest_command(folder, corpus.resolve(), 0), folder)
    line = (
        f"upstream-shape corpus {corpus.name} ({count} entries): {ours.wall_s:.2f} s whole "
        f"process (CPU {ours.cpu_s:.2f} s)"
    )
    if harness_command:
        started = time.perf_counter()
        subprocess.run(harness_command, shell=True, check=True, capture_output=True)
        seconds = time.perf_counter() - started
    if seconds:
        factor = seconds / ours.wall_s
        line += (
            f"; reference harness {seconds:.1f} s: {factor:.0f}x faster "
            f"(target >= 50: {verdict(factor >= 50)})"
        )
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--repeat", type=int, default=10, help="copies of FLORES (1,012 each)")
    parser.add_argument("--memory-100k", action="store_true")
    parser.add_argument("--floor", action="store_true", help="issue 26's targets, ok/MISSED")
    parser.add_argument("--quick", action="store_true", help="with --floor: 2,024 entries")
    parser.add_argument("--entries", type=int, help="with --floor: entries of (a) and (b)")
    parser.add_argument("--runs", type=int, help="with --floor: alternating rounds (best of)")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--upstream", type=Path, help="a corpus in the reference harness shape")
    parser.add_argument("--harness-command", help="the reference harness's run, timed here")
    parser.add_argument("--harness-seconds", type=float, help="the harness's time, measured")
    args = parser.parse_args()
    if args.floor:
        from floor_targets import floor_targets

        entries = args.entries or (2 * FLORES_SIZE if args.quick else 10 * FLORES_SIZE)
        size = "quick" if args.quick and not args.entries else "full"
        if args.entries:
            size = "custom"
        runs = args.runs or (2 if args.quick else 3)
        floor_targets(entries, 10 * entries, runs, size)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.skip_throughput:
            throughput(folder, args.workers, args.repeat)
        if args.memory_100k:
            memory_100k(folder)
        if args.upstream is not None:
            upstream(folder, args.upstream, args.harness_command, args.harness_seconds)


if __name__ == "__main__":
    main()
