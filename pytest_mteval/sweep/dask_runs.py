"""A sweep's runs on a Dask distributed cluster: workers run pytest, the controller keeps cards.

Each pending combination is one task keyed by its planned fingerprint. A worker runs the
combination's pytest session as a subprocess in a folder of its own and returns the card, junit
file and log as bytes; only the controller writes them into the sweep's folder, once per
result. A worker lost mid-run is the scheduler's to handle: it gives the task to another worker
(up to ``distributed.scheduler.allowed-failures`` times), and what the lost run left on its own
host never reaches the sweep. Estimates and reuse stay on the controller, as in a local sweep.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mteval.sweep.log_reason import log_reason
from pytest_mteval.sweep.plan import SweepError

if TYPE_CHECKING:
    from pytest_mteval.sweep.execute import Outcome, SweepOptions
    from pytest_mteval.sweep.plan import SweepPlan

#: Tries of a task whose function raised (a lost worker is counted by the scheduler apart).
RETRIES = 2


@dataclass(frozen=True)
class RemoteRun:
    """What a worker sends back: the exit code and the files the run wrote, as bytes."""

    exit_code: int
    card: bytes | None
    junit: bytes | None
    log: bytes
    worker_host: str
    worker_pid: int


def run_on_worker(args: Sequence[str], cwd: str) -> RemoteRun:
    """One combination's pytest session on this worker, in a folder of its own."""
    with tempfile.TemporaryDirectory(prefix="mteval-sweep-") as scratch:
        here = Path(scratch)
        command = [
            sys.executable,
            "-m",
            "pytest",
            *args,
            f"--mteval-run-card={here / 'card.json'}",
            f"--junitxml={here / 'junit.xml'}",
            "-o",
            f"cache_dir={here / 'pytest-cache'}",
        ]
        with (here / "run.log").open("w", encoding="utf-8") as out:
            out.write(shlex.join(command) + "\n")
            out.flush()
            code = subprocess.run(
                command,
                cwd=cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                check=False,
            ).returncode
        return RemoteRun(
            code,
            _bytes(here / "card.json"),
            _bytes(here / "junit.xml"),
            (here / "run.log").read_bytes(),
            socket.gethostname(),
            os.getpid(),
        )


def _bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def task_key(label: str, fingerprint: str | None) -> str:
    """The task's name on the scheduler: the same combination is never run twice at once."""
    return f"mteval-run-{label}-{(fingerprint or 'unplanned')[:16]}"


def run_on_cluster(
    plan: SweepPlan,
    pending: list[Outcome],
    options: SweepOptions,
    scheduler: str,
    say: Callable[[str], None],
) -> None:
    """Submit every pending combination to the scheduler and file each result as it arrives."""
    try:
        from distributed import (  # type: ignore[import-not-found,unused-ignore]
            Client,
            as_completed,
        )
    except ImportError:
        raise SweepError(
            "--mteval-dask-scheduler needs Dask distributed: pip install 'pytest-mteval[cluster]'"
        ) from None
    with Client(scheduler, timeout=30) as client:  # type: ignore[no-untyped-call,unused-ignore]
        threads = sum(client.nthreads().values()) or 1
        share = max(1, plan.concurrency // min(threads, len(pending)))
        say(f"  cluster  {scheduler}: {len(client.nthreads())} workers, {threads} threads")
        by_key: dict[str, Outcome] = {}
        futures = []
        for outcome in pending:
            combo = outcome.combination
            key = task_key(combo.label, outcome.estimate.get("fingerprint"))
            args = [
                *combo.pytest_args(),
                f"--mteval-label={combo.label}",
                f"--mteval-concurrency={share}",
                *options.extra_args,
            ]
            by_key[key] = outcome
            futures.append(
                client.submit(
                    run_on_worker, args, str(options.cwd), key=key, pure=False, retries=RETRIES
                )
            )
        for future in as_completed(futures):  # type: ignore[no-untyped-call,unused-ignore]
            outcome = by_key[future.key]
            try:
                result: RemoteRun = future.result()
            except Exception as exc:  # the scheduler gave up: lost workers, or it kept raising
                outcome.status = "error"
                say(f"  error    {outcome.combination.label}  ({type(exc).__name__}: {exc})")
                continue
            file_result(plan, outcome, result, say)


def file_result(
    plan: SweepPlan, outcome: Outcome, result: RemoteRun, say: Callable[[str], None]
) -> None:
    """Write what a worker returned into the sweep's folder, each file whole or not at all."""
    combo = outcome.combination
    log = plan.output / "logs" / f"{combo.label}.log"
    _atomic(log, result.log)
    if result.junit is not None:
        _atomic(plan.output / "junit" / f"{combo.label}.xml", result.junit)
    card: Path | None = None
    if result.card is not None:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        card = plan.output / "cards" / combo.label / f"{stamp}.json"
        _atomic(card, result.card)
    outcome.exit_code = result.exit_code
    outcome.card = None if card is None else str(card)
    outcome.worker = f"{result.worker_host}:{result.worker_pid}"
    status = {0: "passed", 1: "failed", 5: "nothing selected"}.get(result.exit_code, "error")
    outcome.status = "error" if status == "failed" and card is None else status
    why = "" if outcome.status in ("passed", "nothing selected") else f": {log_reason(log)}"
    say(f"  {outcome.status:<8} {combo.label}  (exit {result.exit_code}, {outcome.worker}){why}")


def _atomic(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_bytes(content)
    partial.replace(path)
