"""A stand-in for xdist's WorkerController: what our scheduler uses of it, for the scheduler's
unit tests (tests/test_schedule.py) and the pin of xdist's internals (test_xdist_internals.py)."""

from __future__ import annotations

from types import SimpleNamespace


class FakeNode:
    """What the scheduler uses of xdist's WorkerController."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(list(indexes))

    def shutdown(self) -> None:
        self.shutting_down = True
