"""Issue 10 benchmark: what running the method out of process, and in the sandbox, costs.

1. FLORES-200 eng->fra devtest (1,012 entries) with the identity method, batches of 25:
   - the translation alone (start the method, every batch there and back) in process, in a
     runner process and in a sandboxed runner (bubblewrap, new namespaces);
   - the whole pytest session (translation, metrics, card) in the same three modes.
   Reported as ratios against in process (goal: sandboxed <= 1.3x for the session).
2. The LLM gateway's added latency: sequential chat requests to the loopback chat server
   (tests/chat_server.py), directly and through the gateway's Unix socket; the median
   difference per request (goal <= 2 ms).

    python benchmarks/sandbox_overhead.py [--requests 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from timing import best_of

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pytest_mteval.corpus import load_corpus  # noqa: E402
from pytest_mteval.methods.loader import find_method  # noqa: E402
from pytest_mteval.methods.protocol import RunConfig  # noqa: E402
from pytest_mteval.run.batch_translation import MethodRunner, collect_batch, submit_batch  # noqa: E402
from pytest_mteval.run.gateway import Gateway, GatewayConfig  # noqa: E402
from pytest_mteval.run.gateway_audit_log import AuditLog  # noqa: E402
from pytest_mteval.run.runner_client import Launch, ProcessBackend  # noqa: E402
from pytest_mteval.run.sandbox import sandbox_launch, sandbox_problem  # noqa: E402

CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"
IDENTITY = (ROOT / "methods" / "identity").resolve()  # the shipped folder, not its link
BATCH = 25
#: Seconds each runner took to start (import and build the method), collected as we go.
STARTS: list[float] = []


def translate_in_process() -> None:
    corpus = load_corpus(CORPUS)
    config = RunConfig(batch_size=BATCH, concurrency=BATCH)
    method = find_method(str(IDENTITY), ROOT, {}).factory(config)
    runner = MethodRunner()
    for start in range(0, len(corpus.entries), BATCH):
        batch = corpus.entries[start : start + BATCH]
        results, _ = collect_batch(runner, submit_batch(runner, method, batch, config))
        assert all(r["error"] is None for r in results.values())
    runner.close()


def translate_in_runner(launch: Launch) -> Callable[[], None]:
    def run() -> None:
        corpus = load_corpus(CORPUS)
        config = RunConfig(batch_size=BATCH, concurrency=BATCH)
        backend = ProcessBackend(launch, {"kind": "folder", "path": str(IDENTITY)}, config)
        started = time.perf_counter()
        backend.start()
        STARTS.append(time.perf_counter() - started)
        for start in range(0, len(corpus.entries), BATCH):
            batch = corpus.entries[start : start + BATCH]
            results, _ = backend.collect(backend.submit(batch, config))
            assert all(r["error"] is None for r in results.values())
        backend.close()

    return run


def session(mode: list[str]) -> Callable[[], None]:
    def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            command += ["-p", "no:xdist", "-p", "no:randomly", f"--mteval-corpus={CORPUS}"]
            command += [f"--mteval-method={IDENTITY}", "--mteval-no-cache", *mode]
            command += [f"--mteval-run-card={Path(tmp) / 'card.json'}"]
            subprocess.run(command, check=True, capture_output=True, cwd=tmp)

    return run


#: The loopback chat server in a process of its own, as an upstream would be: in this process
#: its thread would compete with the gateway's for the interpreter lock.
SERVER = (
    "import sys, time; sys.path.insert(0, sys.argv[1]); from chat_server import ChatServer\n"
    "with ChatServer() as s:\n    print(s.url, flush=True); sys.stdin.read()\n"
)


def gateway_latency(requests: int) -> tuple[float, float, float]:
    """Median wall seconds per request, directly and through the gateway, and the CPU seconds
    per request the gateway adds (steadier than wall time on a loaded machine)."""
    body = {"model": "m", "messages": [{"role": "user", "content": "The cat sat on the mat."}]}
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT / "tests")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    assert server.stdin is not None
    url = server.stdout.readline().strip()
    with tempfile.TemporaryDirectory() as tmp:
        config = GatewayConfig(url, "sk-bench", ["m"], 8, requests * 4, 30.0)
        gateway = Gateway(config, Path(tmp) / "gw.sock", AuditLog(Path(tmp) / "audit.jsonl"))
        gateway.start()
        direct = httpx.Client(base_url=url + "/")
        via = httpx.Client(
            base_url="http://gateway/v1/",
            transport=httpx.HTTPTransport(uds=str(Path(tmp) / "gw.sock")),
        )
        times: dict[str, list[float]] = {"direct": [], "via": []}
        cpu: dict[str, float] = {}
        for name, client in (("direct", direct), ("via", via)):
            client.post("chat/completions", json=body).raise_for_status()  # connect first
            cpu_started = time.process_time()  # this process: client, and the gateway's thread
            for _ in range(requests):
                started = time.perf_counter()
                client.post("chat/completions", json=body).raise_for_status()
                times[name].append(time.perf_counter() - started)
            cpu[name] = (time.process_time() - cpu_started) / requests
        direct.close()
        via.close()
        gateway.close()
    server.stdin.close()
    server.wait(10)
    return (
        statistics.median(times["direct"]),
        statistics.median(times["via"]),
        cpu["via"] - cpu["direct"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    problem = sandbox_problem()
    plain = Launch([sys.executable, "-m", "pytest_mteval.run.runner_main"])
    print(f"{len(load_corpus(CORPUS).entries)} entries, identity, batches of {BATCH}")
    print("translation only (best of runs):")
    base = best_of(args.runs, translate_in_process)
    print(f"  in process          {base:7.3f} s  1.00x")
    runner = best_of(args.runs, translate_in_runner(plain))
    start = min(STARTS)
    print(f"  runner process      {runner:7.3f} s  {runner / base:.2f}x  (start {start:.3f} s)")
    if problem is None:
        STARTS.clear()
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
        boxed = sandbox_launch(IDENTITY, [], [CORPUS], None, env)
        sandboxed = best_of(args.runs, translate_in_runner(boxed))
        start = min(STARTS)
        print(
            f"  sandboxed runner    {sandboxed:7.3f} s  {sandboxed / base:.2f}x"
            f"  (start {start:.3f} s; then {(sandboxed - start) / base:.2f}x)"
        )
    print("whole pytest session (best of runs):")
    base = best_of(args.runs, session(["--mteval-runner=inprocess"]))
    print(f"  in process          {base:7.3f} s  1.00x")
    runner = best_of(args.runs, session(["--mteval-sandbox=none"]))
    print(f"  plain runner        {runner:7.3f} s  {runner / base:.2f}x  (--mteval-sandbox=none)")
    if problem is None:
        sandboxed = best_of(args.runs, session([]))  # the default: auto, netns here
        verdict = "ok" if sandboxed / base <= 1.3 else "OVER the 1.3x goal"
        print(f"  default (sandboxed) {sandboxed:7.3f} s  {sandboxed / base:.2f}x ({verdict})")
        print(f"  default / plain runner: {sandboxed / runner:.2f}x")
    else:
        print(f"  sandbox skipped: {problem}")
    direct, via, cpu = gateway_latency(args.requests)
    added_ms = (via - direct) * 1000
    verdict = "ok" if added_ms <= 2 else "OVER the 2 ms goal"
    print(f"gateway, {args.requests} sequential requests to the loopback chat server (median):")
    print(f"  direct {direct * 1000:.3f} ms, via gateway {via * 1000:.3f} ms")
    print(f"  added {added_ms:.3f} ms wall per request ({verdict}); ratio {via / direct:.2f}x")
    print(f"  added {cpu * 1000:.3f} ms CPU per request (gateway parsing, forwarding, audit log)")
    print(f"  load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    figures = {"gateway_added_ms": round(added_ms, 3), "gateway_cpu_ms": round(cpu * 1e3, 3)}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
