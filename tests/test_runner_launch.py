"""The runner is launched before the harness builds its metrics and its method is built in it
after (run/isolation.py): a run refused in between (a metric that cannot be built) leaves no
runner behind."""

from __future__ import annotations

import sys
import time

from pytest_mteval.run.isolation import Isolation
from pytest_mteval.run.runner_client import Launch, RunnerProcess

#: A runner that says hello and waits for its start message, as the Python runner does.
_RUNNER = [sys.executable, "-m", "pytest_mteval.run.runner_main"]


def _launched() -> tuple[Isolation, RunnerProcess]:
    isolation = Isolation("process", "none")
    process = RunnerProcess(Launch(_RUNNER))
    isolation._launched = process
    assert process.wait_for(lambda: process.first is not None, deadline=time.monotonic() + 60)
    return isolation, process


def test_a_run_refused_before_its_runner_was_used_stops_that_runner() -> None:
    isolation, process = _launched()
    assert process.proc.poll() is None  # booted, waiting for its method
    isolation.close()
    assert process.proc.poll() is not None
    assert isolation._launched is None
