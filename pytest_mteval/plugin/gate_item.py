"""The session gate as a test of its own, ``mteval::gate``, reported after every entry.

A gate that only sets the exit status looks green to CI reporters: the last line says "58
passed" and the JUnit file "failures=0". Reporting the verdict as an item makes the summary
line, ``--junitxml`` and every reporter count it, and its failure text is the verdict table.
The gate needs every entry's record, which only the controller has once all workers are
done, so the item's reports are made there, at the end of the session, instead of being
collected and run on a worker.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest

from pytest_mteval.cards.gate import GateVerdict, gate_lines
from pytest_mteval.plugin.failure_text import MtevalFailure, failure_report
from pytest_mteval.run.run_state import BaselineLoad

GATE_NODEID = "mteval::gate"
GATE_LOCATION = ("mteval", None, "mteval gate")


def gate_reports(
    verdict: GateVerdict, notes: Sequence[str] = (), style: str = "auto"
) -> list[pytest.TestReport]:
    """setup, call and teardown reports of the gate item; the call fails with the table
    (with ``--tb=line``, only the verdict line)."""
    now = time.time()
    lines = gate_lines(verdict)
    text = "\n".join([lines[-1], *notes, *lines[:-1]])  # the verdict first: the short summary
    if style == "line":
        text = lines[-1]
    outcome = "passed" if verdict.passed else "failed"

    def report(when: str, result: str, longrepr: str | MtevalFailure | None) -> pytest.TestReport:
        return pytest.TestReport(
            GATE_NODEID,
            GATE_LOCATION,
            {"mteval": 1, "gate": 1},
            result,  # type: ignore[arg-type]
            longrepr,
            when,  # type: ignore[arg-type]
            duration=0.0,
            start=now,
            stop=now,
        )

    return [
        report("setup", "passed", None),
        report("call", outcome, None if verdict.passed else failure_report(text, GATE_NODEID)),
        report("teardown", "passed", None),
    ]


def baseline_note(load: BaselineLoad | None, update_baseline: bool) -> str:
    """The baseline note, without the hint to pass a flag the user already passed."""
    return "" if load is None else load.describe(hint=not update_baseline)
