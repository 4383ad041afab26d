"""Whether ``-n`` paid for itself: a run under pytest-xdist against what the same run would
have taken serially, estimated from the run's own timings (the rule: docs/large-runs.md).

With a cheap method (identity, a cache, a local lookup) an entry costs less to translate and
score than xdist costs to ship it to a worker and its reports back, so ``-n`` makes the run
slower; a person learns it from one line at the end of the run, not from a benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: pytest's own cost of one item in a serial run, beyond its measured setup, call and
#: teardown: collecting it, its hooks, its reports, the terminal's progress. About 0.5 ms on
#: the 2-core reference machine when quiet (issue 26: 10,120 empty parametrized tests took
#: 0.61x sacrebleu's CLI on as many pairs, some 5.5 s); more when loaded (2.2 ms measured by
#: benchmarks/parallel_rule.py at a load of 11), which makes -n look better than it was.
SERIAL_ITEM_COST_S: Final = 0.0005
#: How much longer than the serial estimate the run must have taken before it is called
#: slower: a near tie is not worth a line.
MARGIN: Final = 1.1


@dataclass(frozen=True)
class ParallelRun:
    """What the controller measured of a run under xdist."""

    workers: int
    #: from the start of the run (pytest's configure) to the end of its test loop
    wall_s: float
    #: every item's setup + call + teardown, as measured on the workers (an entry's call
    #: includes translating and scoring its batch when it is the batch's first)
    item_s: float
    items: int

    @property
    def serial_estimate_s(self) -> float:
        """The same items one after another, each with pytest's serial per-item cost."""
        return self.item_s + self.items * SERIAL_ITEM_COST_S

    @property
    def slower_than_serial(self) -> bool:
        return self.workers > 0 and self.items > 0 and self.wall_s > MARGIN * self.serial_estimate_s


def advice_line(run: ParallelRun) -> str | None:
    """The summary's line when ``-n`` made the run slower than a serial run; else None."""
    if not run.slower_than_serial:
        return None
    per_entry_ms = 1000 * run.item_s / run.items
    return (
        f"-n slowed this run: {run.wall_s:.1f} s with {run.workers} workers, about "
        f"{run.serial_estimate_s:.1f} s serially ({per_entry_ms:.2f} ms of work per item); "
        "run it without -n (docs/large-runs.md)"
    )
