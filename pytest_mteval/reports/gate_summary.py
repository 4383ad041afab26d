"""The top of a run's HTML report: did the gate pass, against what, and by how much each gated
metric moved from the baseline. A reader opening the page to learn whether a change may merge
finds the answer first, not below the charts."""

from __future__ import annotations

from typing import Any

from pytest_mteval.cards.card_model import GateRecord
from pytest_mteval.reports.page import number


def gate_summary(gate: GateRecord | None) -> dict[str, Any]:
    """The verdict, what it was measured against, and one row per gated metric."""
    if gate is None:
        gate = GateRecord(passed=False)  # not gated: no baseline, no metric
    rows = []
    for row in gate.metrics:
        delta = row.get("delta")
        rows.append(
            {
                "metric": str(row.get("metric")),
                "baseline": number(row.get("baseline"), 4),
                "now": number(row.get("now"), 4),
                "delta": "–" if delta is None else f"{delta:+.4f}",
                "verdict": str(row.get("verdict") or ""),
                "passed": bool(row.get("passed")),
            }
        )
    gated = bool(gate.baseline or rows)
    verdict = ("PASSED" if gate.passed else "FAILED") if gated else "not gated"
    against = gate.baseline or (
        "no baseline: absolute limits only" if rows else "no baseline and no floor"
    )
    return {"verdict": verdict, "against": str(against), "rows": rows,
            "notes": [str(n) for n in gate.notes]}  # fmt: skip
