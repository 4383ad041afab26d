"""The garbage collector tuned for the length of an evaluation, and restored after it.

A run holds its corpus, the metrics' resources and every imported module for its whole length,
and creates a few dozen short-lived objects per entry (items, reports, records). With CPython's
default thresholds the young generation is collected every 700 allocations, re-examining the
survivors each time: 4,600 collections taking 2.7 s of a 35 s run of 10,120 entries (measured
with ``gc.callbacks``). So while a run is active, what exists when it starts is frozen (never
examined again) and the young generation is collected every 10,000 allocations: 430
collections, 0.9 s.
Reference counting still frees everything that is not in a cycle at once; cycles wait a little
longer, a few megabytes at most. Both settings are restored when pytest unconfigures, since
an in-process pytest (``pytester``) shares the interpreter with its caller: after pytest's own
collections at unconfigure, which would otherwise examine every module imported (70 ms of a
200-entry run).

Before that, while a run starts (its modules imported, its corpus loaded, its metrics built),
the collector does not run at all (``collection_paused``): the start makes some 80,000 objects
that all live for the run, which CPython's default thresholds re-examine over and over as they
pile up, some 40 ms of a small run's start (12 % of its imports). What the start leaves as
garbage in cycles is small and does not grow with the corpus (about 1,000 objects, 0.5 MB,
measured at 200 and at 20,240 entries): the run's freeze keeps it until the run ends.

A frozen object is invisible to ``gc.get_referrers``. Hypothesis relies on it: where trio is
installed (selenium brings it), importing hypothesis (its pytest plugin does at the terminal
summary) registers a random generator that trio's module holds, and hypothesis, finding no
referrer, warned that it could be collected at once: "1 warning" on every run, a false alarm
of the freeze. That one warning, from trio's module, is ignored while the freeze lasts.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: Allocations between two collections of the youngest generation during a run (CPython: 700).
YOUNG_THRESHOLD = 10_000

#: A ``filterwarnings`` line: hypothesis's warning about trio's generator, which the freeze
#: hides from ``gc.get_referrers`` (see above); the same words from anywhere else still show.
FROZEN_REFERRER_FALSE_ALARM = (
    "ignore:It looks like `register_random` was passed an object that could be garbage "
    "collected::trio"
)


class RunGarbageCollection:
    """Tune the collector when a run starts; put it back as it was when the run ends."""

    def __init__(self) -> None:
        self.saved = gc.get_threshold()
        self.freezes = gc.get_freeze_count() == 0  # someone else's freeze is not ours to undo

    def start(self, config: pytest.Config) -> None:
        if self.freezes:
            gc.freeze()
            config.addinivalue_line("filterwarnings", FROZEN_REFERRER_FALSE_ALARM)
        gc.set_threshold(max(YOUNG_THRESHOLD, self.saved[0]), *self.saved[1:])

    def restore(self) -> None:
        gc.set_threshold(*self.saved)
        if self.freezes:
            gc.unfreeze()


@contextmanager
def collection_paused() -> Iterator[None]:
    """No collection while a run starts; the collector as it was afterwards (see above)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
