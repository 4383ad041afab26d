"""How much wall time endpoint latency adds to an LLM run, against the ideal.

2,000 entries go through the raw-llm method (loaded from its method.json) to the loopback
chat-completions server at concurrency 64, once with 0 ms and once with 50 ms of latency per
request. With a perfect client the latency adds entries x latency / concurrency seconds; the
ratio of the measured difference to that ideal is the overhead of queueing, the semaphore and
connection handling. Target (issue 5): ratio <= 1.3.

By default each server runs in a process of its own, as a real endpoint would; with
``--server thread`` it shares the client's process and GIL, and its CPU time lands in the
client's wall time.

    python benchmarks/llm_latency.py [--entries 2000] [--latency 0.05] [--concurrency 64]
                                     [--repeats 3] [--server process|thread]
                                     [--via pytest|method] [--batch-size 25]

``--via pytest`` (the default) times whole pytest sessions, batches of 25 included, so the
harness's scheduling of batches is measured too; ``--via method`` calls the method once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer  # type: ignore[import-not-found,unused-ignore]  # noqa: E402

from pytest_mteval.corpus import load_corpus  # noqa: E402
from pytest_mteval.methods.loader import find_method  # noqa: E402
from pytest_mteval.methods.protocol import MethodEntry, RunConfig  # noqa: E402


def real_entries(count: int) -> list[MethodEntry]:
    """FLORES-200 devtest English sentences (shipped corpus), cycled to ``count`` entries."""
    corpus = load_corpus(REPO / "corpora" / "eng-fra-flores-devtest.json")
    sources = [e.source for e in corpus.entries]
    return [{"id": f"e{i}", "source": sources[i % len(sources)]} for i in range(count)]


@contextmanager
def served(latency: float, mode: str) -> Iterator[str]:
    """The URL of a loopback server with this latency, in a thread or a child process."""
    if mode == "thread":
        with ChatServer(latency_s=latency) as server:
            yield server.url
        return
    command = [sys.executable, str(REPO / "tests" / "chat_server.py"), "--latency", str(latency)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        assert child.stdin is not None
        try:
            yield child.stdout.readline().strip()
        finally:
            child.stdin.close()
            child.wait(10)


def run_config(url: str, concurrency: int) -> RunConfig:
    return RunConfig(
        source_language="en",
        target_language="fr",
        model="bench/model",
        concurrency=concurrency,
        timeout_s=600.0,
        method_args={"base_url": url, "api_key_env": ""},
    )


def timed_run(entries: list[MethodEntry], config: RunConfig) -> float:
    method = find_method("methods/raw-llm", REPO, {}).factory(config)
    started = time.perf_counter()
    results = asyncio.run(method.translate(entries, config))
    elapsed = time.perf_counter() - started
    failed = [r["error"] for r in results if r["error"]]
    if failed:
        raise SystemExit(f"{len(failed)} entries failed, e.g. {failed[0]}")
    return elapsed


def write_corpus(folder: Path, count: int) -> Path:
    """``count`` real FLORES eng->fra entries (cycled, ids made unique) as a corpus file."""
    data = json.loads((REPO / "corpora" / "eng-fra-flores-devtest.json").read_text("utf-8"))
    base = data["entries"]
    data["entries"] = [{**base[i % len(base)], "id": i + 1} for i in range(count)]
    path = folder / "flores-cycled.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def timed_pytest_run(corpus: Path, url: str, concurrency: int, batch_size: int) -> float:
    """A whole pytest session, as users run it: batches of ``batch_size`` entries."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-method={REPO / 'methods' / 'raw-llm'}"]
    command += ["--mteval-model=bench/model", f"--mteval-concurrency={concurrency}"]
    command += [f"--mteval-batch-size={batch_size}", "--mteval-no-cache", "--mteval-timeout=600"]
    command += [f"--mteval-method-arg=base_url={url}", "--mteval-method-arg=api_key_env="]
    command += [f"--mteval-run-card={corpus.parent / f'card-{time.time_ns()}.json'}"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=corpus.parent)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pytest run failed:\n{done.stdout[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--server", choices=("process", "thread"), default="process")
    parser.add_argument(
        "--via",
        choices=("pytest", "method"),
        default="pytest",
        help="a whole pytest session (default), or the method called once with every entry",
    )
    parser.add_argument("--batch-size", type=int, default=25)
    args = parser.parse_args()
    entries = real_entries(args.entries)
    folder = Path(tempfile.mkdtemp(prefix="mteval-llm-bench-"))
    corpus = write_corpus(folder, args.entries)

    def timed(config: RunConfig) -> float:
        if args.via == "method":
            return timed_run(entries, config)
        url = config.method_args["base_url"]
        return timed_pytest_run(corpus, url, args.concurrency, args.batch_size)

    times: dict[float, list[float]] = {0.0: [], args.latency: []}
    with ExitStack() as stack:
        configs = {
            latency: run_config(stack.enter_context(served(latency, args.server)), args.concurrency)
            for latency in times
        }
        timed_run(entries[:200], configs[0.0])  # warm-up: imports, first connections
        for _ in range(args.repeats):
            for latency, config in configs.items():
                times[latency].append(timed(config))
    base = statistics.median(times[0.0])
    slow = statistics.median(times[args.latency])
    ideal = args.entries * args.latency / args.concurrency
    report = {
        "entries": args.entries,
        "concurrency": args.concurrency,
        "latency_s": args.latency,
        "median_s_without_latency": round(base, 3),
        "median_s_with_latency": round(slow, 3),
        "added_s": round(slow - base, 3),
        "ideal_added_s": round(ideal, 3),
        "ratio": round((slow - base) / ideal, 3),
        "target_ratio": 1.3,
        "server": args.server,
        "via": args.via,
        "batch_size": args.batch_size if args.via == "pytest" else args.entries,
        "runs_s": {str(k): [round(t, 3) for t in v] for k, v in times.items()},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
