"""The controller's timings of a run under pytest-xdist, for the summary's line on whether
``-n`` paid (reports/parallel_advice.py): the run's wall time and the durations the workers
measured for every item, read off the reports the controller receives anyway."""

from __future__ import annotations

import time
from typing import Any

from pytest_mteval.plugin.xdist_internals import worker_id
from pytest_mteval.reports.parallel_advice import ParallelRun, advice_line


class ParallelTiming:
    """Started with the run on the controller; a serial run's reports carry no worker node
    and leave it empty."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.ended: float | None = None
        self.item_s = 0.0
        self.items = 0
        self.workers: set[str] = set()

    def logged(self, report: Any) -> None:
        node = getattr(report, "node", None)  # set by xdist on a worker's report
        if node is None:
            return
        self.workers.add(worker_id(node))
        self.item_s += getattr(report, "duration", 0.0)
        if report.when == "call":
            self.items += 1

    def end(self) -> None:
        """The test loop is over (the card, the gate and the summary are not counted)."""
        self.ended = time.perf_counter()

    def advice(self) -> str | None:
        if not self.workers or self.ended is None:
            return None
        wall = self.ended - self.started
        return advice_line(ParallelRun(len(self.workers), wall, self.item_s, self.items))
