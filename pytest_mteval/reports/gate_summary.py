"""The top of a run's HTML report: did the gate pass, against what, and by how much each gated
metric moved from the baseline. A reader opening the page to learn whether a change may merge
finds the answer first, not below the charts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mteval.reports.page import number


def gate_summary(card: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict, what it was measured against, and one row per gated metric."""
    gate: Mapping[str, Any] = card.get("gate") or {}
    rows = []
    for row in gate.get("metrics") or []:
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
    gated = bool(gate.get("baseline") or rows)
    verdict = ("PASSED" if gate.get("passed") else "FAILED") if gated else "not gated"
    against = gate.get("baseline") or (
        "no baseline: absolute limits only" if rows else "no baseline and no floor"
    )
    return {"verdict": verdict, "against": str(against), "rows": rows,
            "notes": [str(n) for n in gate.get("notes") or []]}  # fmt: skip
