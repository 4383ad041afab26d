"""The session gate as a test of its own, ``mteval::gate``, reported after every entry.

A gate that only sets the exit status looks green to CI reporters: the last line says "58
passed" and the JUnit file "failures=0". Reporting the verdict as an item makes the summary
line, ``--junitxml`` and every reporter count it, and its failure text is the verdict table.
The gate needs every entry's record, which only the controller has once all workers are
done, so the item is made there, at the end of the session, and run through pytest's own
protocol (setup, call, teardown and their reports), instead of being collected: xdist's
controller collects nothing, and a worker has only its own entries' records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from pytest_mteval.cards.gate import GateVerdict, gate_lines
from pytest_mteval.plugin.failure_text import MtevalFailure, failure_report
from pytest_mteval.run.run_state import BaselineLoad

GATE_NODEID = "mteval::gate"
GATE_LOCATION = ("mteval", None, "mteval gate")


class GateFailed(Exception):
    """The gate's verdict failed; the item's report carries the verdict table."""


class GateItem(pytest.Item):
    """``mteval::gate``: passes or fails as the verdict does. Its failure text leads with the
    verdict line (the short summary), then the notes and the table; with ``--tb=line``, only
    the verdict line."""

    def __init__(self, *, verdict: GateVerdict, notes: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verdict = verdict
        self.notes = list(notes)
        self.keywords.update({"mteval": 1, "gate": 1})

    @classmethod
    def for_session(
        cls, session: pytest.Session, verdict: GateVerdict, notes: Sequence[str]
    ) -> GateItem:
        item: GateItem = cls.from_parent(
            session, name="gate", nodeid=GATE_NODEID, verdict=verdict, notes=notes
        )
        return item

    @property
    def location(self) -> tuple[str, int | None, str]:
        return GATE_LOCATION  # not a file's: the same wherever pytest was started

    def reportinfo(self) -> tuple[str, int | None, str]:
        return GATE_LOCATION

    def runtest(self) -> None:
        if not self.verdict.passed:
            raise GateFailed(gate_lines(self.verdict)[-1])

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | MtevalFailure:
        if not isinstance(excinfo.value, GateFailed):
            return str(super().repr_failure(excinfo, style))
        lines = gate_lines(self.verdict)
        text = "\n".join([lines[-1], *self.notes, *lines[:-1]])
        if self.config.getoption("tbstyle", "auto") == "line":
            text = lines[-1]
        return failure_report(text, GATE_NODEID)


def baseline_note(load: BaselineLoad | None, update_baseline: bool) -> str:
    """The baseline note, without the hint to pass a flag the user already passed."""
    return "" if load is None else load.describe(hint=not update_baseline)
