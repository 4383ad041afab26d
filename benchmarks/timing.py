"""The timing loop the benchmarks share: the best of a few runs, since on a shared machine
the fastest run is the one least disturbed by others (imported as ``timing``, as the
benchmarks run as scripts)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(runs: int, call: Callable[[], object]) -> float:
    """The shortest wall time of ``runs`` calls, in seconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)
