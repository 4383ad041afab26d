"""Issue 41 benchmark: what the sandbox costs a class A2 method, which used to get the plain
runner and now runs in bubblewrap with the host's network (``hostnet``).

FLORES-200 eng->fra devtest (1,012 entries), the identity method declared A2 (an
``external-api`` dependency), batches of 25, both measured in this run, in alternation:
- the translation alone (start the runner, every batch there and back): the plain runner
  (supervised, in its PID namespace) against the ``hostnet`` sandbox;
- the whole pytest session: ``--mteval-sandbox=none`` against the default (auto), which
  gives this method the ``hostnet`` sandbox.
Reported as ratios sandboxed / plain (best of runs).

    python benchmarks/a2_sandbox_overhead.py [--runs 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from pytest_mteval.corpus import load_corpus  # noqa: E402
from pytest_mteval.methods.loader import find_method  # noqa: E402
from pytest_mteval.methods.protocol import RunConfig  # noqa: E402
from pytest_mteval.run.method_ref import method_ref  # noqa: E402
from pytest_mteval.run.runner_client import Launch, ProcessBackend  # noqa: E402
from pytest_mteval.run.sandbox import sandbox_launch, sandbox_problem  # noqa: E402

CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"
IDENTITY = (ROOT / "methods" / "identity").resolve()
BATCH = 25
EXTERNAL_API = {
    "id": "dictionary-api", "kind": "service", "license": "none", "access": "external-api",
    "source": "https://dictionary.example/lookup", "substitutable": False,
    "redistributable": False, "transferable": False,
}  # fmt: skip


def a2_method(folder: Path) -> Path:
    """The identity method, declared class A2."""
    method = folder / "identity-a2"
    shutil.copytree(IDENTITY, method)
    path = method / "method.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest.update(dependency_class="A2", dependencies=[EXTERNAL_API])
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return method


def translate(launch: Launch, method: Path) -> Callable[[], None]:
    def run() -> None:
        corpus = load_corpus(CORPUS)
        config = RunConfig(batch_size=BATCH, concurrency=BATCH)
        ref = method_ref(find_method(str(method), ROOT, {}))
        backend = ProcessBackend(launch, ref, config)
        backend.start()
        for start in range(0, len(corpus.entries), BATCH):
            batch = corpus.entries[start : start + BATCH]
            results, _ = backend.collect(backend.submit(batch, config))
            assert all(r["error"] is None for r in results.values())
        backend.close()

    return run


def session(method: Path, mode: list[str], expected: str) -> Callable[[], None]:
    def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            card = Path(tmp) / "card.json"
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            command += ["-p", "no:xdist", "-p", "no:randomly", f"--mteval-corpus={CORPUS}"]
            command += [f"--mteval-method={method}", "--mteval-no-cache", *mode]
            command += [f"--mteval-run-card={card}"]
            subprocess.run(command, check=True, capture_output=True, cwd=tmp)
            sandbox = json.loads(card.read_text(encoding="utf-8"))["runner"]["sandbox"]
            assert sandbox == expected, sandbox

    return run


def alternate(runs: int, calls: dict[str, Callable[[], None]]) -> dict[str, float]:
    """The best wall time of each call over ``runs`` rounds, the calls alternating."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(runs):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem is not None:
        print(f"no sandbox here: {problem}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        method = a2_method(Path(tmp))
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8"}
        plain = Launch(
            [sys.executable, "-m", "pytest_mteval.run.runner_main", "--supervised"],
            env={**env, "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
            supervised=True,
        )
        boxed = sandbox_launch(method, [], [CORPUS], None, env, network=True)
        entries = len(load_corpus(CORPUS).entries)
        print(f"{entries} entries, identity declared A2, batches of {BATCH}, best of {args.runs}")
        alone = alternate(args.runs, {"plain": translate(plain, method),
                                      "hostnet": translate(boxed, method)})  # fmt: skip
        ratio_alone = alone["hostnet"] / alone["plain"]
        print("translation only:")
        print(f"  plain runner      {alone['plain']:7.3f} s  1.00x")
        print(f"  hostnet sandbox   {alone['hostnet']:7.3f} s  {ratio_alone:.2f}x")
        whole = alternate(args.runs, {
            "plain": session(method, ["--mteval-sandbox=none"], "none"),
            "hostnet": session(method, [], "hostnet"),
        })  # fmt: skip
        ratio_whole = whole["hostnet"] / whole["plain"]
        print("whole pytest session:")
        print(f"  --mteval-sandbox=none  {whole['plain']:7.3f} s  1.00x")
        print(f"  default (hostnet)      {whole['hostnet']:7.3f} s  {ratio_whole:.2f}x")
    print(f"  load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(json.dumps({"a2_translation_ratio": round(ratio_alone, 3),
                      "a2_session_ratio": round(ratio_whole, 3)}))  # fmt: skip


if __name__ == "__main__":
    main()
