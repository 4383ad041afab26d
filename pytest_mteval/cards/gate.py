"""The session gate: did this run regress against the baseline, metric by metric?

A drop fails only when it is larger than allowed AND (unless the test is disabled with
significance 0) a paired bootstrap test says it is significant: an LLM run at temperature 0
still wobbles, and a gate that fails on noise teaches people to ignore it. ``fail_under`` is an
absolute floor on this run's own composite and needs no baseline. Whatever happens, the result
is a verdict with one-line reasons, never an exception: a gate ends in a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring.comparable_run import Comparable
from pytest_mteval.scoring.gate_options import GateOptions
from pytest_mteval.scoring.paired_comparison import COMPOSITE, Measure, Pairing, measure, pair


@dataclass(frozen=True)
class MetricVerdict:
    """One gated quantity: baseline -> now, the delta and its interval, and the verdict."""

    metric: str
    baseline: float | None
    now: float | None
    delta: float | None
    ci_lower: float | None
    ci_upper: float | None
    p_value: float | None
    limit: str
    passed: bool
    verdict: str


@dataclass
class GateVerdict:
    passed: bool
    rows: list[MetricVerdict]
    notes: list[str]
    options: GateOptions
    baseline: str | None = None
    #: The baseline card's run_card_hash (None for a reference-harness report or no baseline).
    baseline_hash: str | None = None
    common_entries: int = 0
    shared_metrics: list[str] = field(default_factory=list)
    #: Every metric measured, gated or only reported (``mteval compare`` shows them all).
    measures: dict[str, Measure] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The gate's inputs and verdict, for the run card."""
        return {
            "passed": self.passed,
            "baseline": self.baseline,
            "baseline_run_card_hash": self.baseline_hash,
            "options": self.options.to_json(),
            "common_entries": self.common_entries,
            "shared_metrics": self.shared_metrics,
            "metrics": [asdict(row) for row in self.rows],
            "notes": self.notes,
        }


def evaluate_gate(
    baseline: Comparable | None,
    card: RunCard,
    options: GateOptions,
    records: Sequence[EntryRecord] = (),
) -> GateVerdict:
    """The verdict on a finished run's card (sealed or not), never raising.

    Pass the run's ``records`` (those the card was built from, with their sufficient
    statistics) so that the card's rows are not read back and no statistic is recomputed.
    """
    try:
        return evaluate_runs(baseline, from_card(card, "this run", records), options)
    except Exception as exc:  # the gate ends in a message, never in a traceback
        reason = f"the gate could not be evaluated: {type(exc).__name__}: {exc}"
        return GateVerdict(False, [], [reason], options, _name(baseline))


def evaluate_runs(
    baseline: Comparable | None,
    current: Comparable,
    options: GateOptions,
    also_measure: Sequence[str] = (),
) -> GateVerdict:
    """The verdict of ``current`` against ``baseline``; ``also_measure`` names metrics to
    measure without gating them."""
    rows: list[MetricVerdict] = []
    notes: list[str] = []
    if options.fail_under is not None:
        rows.append(_floor(current.composite, options.fail_under))
    if baseline is None:
        notes.append("no baseline: nothing to compare with, only absolute limits apply")
        return GateVerdict(all(r.passed for r in rows), rows, notes, options)
    pairing = pair(baseline, current)
    gates: dict[str, float] = {}
    if options.max_drop is not None:
        gates[COMPOSITE] = options.max_drop
    gates.update(options.metric_gates)  # "composite:X" there overrides max_drop
    test = options.significance > 0
    wanted = [*dict.fromkeys([*gates, *also_measure])]
    measures = measure(
        baseline,
        current,
        pairing,
        wanted,
        test=test,
        n_bootstrap=options.n_bootstrap,
        seed=options.seed,
        confidence=options.confidence,
    )
    for metric, max_drop in gates.items():
        rows.append(_judge(measures[metric], max_drop, options.significance, pairing))
    notes.extend(pairing.notes)
    return GateVerdict(
        all(r.passed for r in rows),
        rows,
        notes,
        options,
        baseline.describe(),
        baseline.run_card_hash,
        len(pairing.common),
        pairing.shared,
        measures,
    )


def drop_of(metric: str, delta: float) -> float:
    """How much worse ``delta`` (now - baseline) is: positive when the metric got worse."""
    definition = catalog.get(metric)
    return -delta if definition is None else definition.worsening(delta)


def _judge(m: Measure, max_drop: float, significance: float, pairing: Pairing) -> MetricVerdict:
    limit = f"max drop {max_drop:g}"

    def verdict(passed: bool, text: str) -> MetricVerdict:
        return MetricVerdict(
            m.metric, m.baseline, m.now, m.delta, m.lower, m.upper, m.p_value, limit, passed, text
        )

    if not pairing.common:
        return verdict(False, "FAIL: no entry in common with the baseline")
    if m.baseline is None or m.now is None or m.delta is None:
        missing = "not measured by both runs" if m.metric != COMPOSITE else "no metric in common"
        return verdict(False, f"FAIL: cannot compare, {missing}")
    drop = drop_of(m.metric, m.delta)
    if drop <= max_drop:
        return verdict(True, "pass" if drop <= 0 else "pass (within the allowed drop)")
    if significance == 0:
        return verdict(False, f"FAIL: dropped {drop:.4g} > {max_drop:g}")
    if m.p_value is None:
        why = "held fixed" if m.held_fixed else "not testable"
        return verdict(False, f"FAIL: dropped {drop:.4g} > {max_drop:g} (significance {why})")
    if m.p_value >= significance:
        return verdict(True, f"pass (drop not significant, p >= {significance:g})")
    return verdict(False, f"FAIL: dropped {drop:.4g} > {max_drop:g}, p < {significance:g}")


def _floor(composite: float | None, fail_under: float) -> MetricVerdict:
    limit = f"floor {fail_under:g}"
    if composite is None:
        passed, text = False, "FAIL: this run has no composite"
    elif composite < fail_under:
        passed, text = False, f"FAIL: {composite:.4f} < {fail_under:g}"
    else:
        passed, text = True, "pass"
    return MetricVerdict(
        "composite (this run)", None, composite, None, None, None, None, limit, passed, text
    )


def _name(baseline: Comparable | None) -> str | None:
    return None if baseline is None else baseline.describe()


def gate_lines(verdict: GateVerdict) -> list[str]:
    """The "mteval gate" terminal section."""
    lines = [f"against   {verdict.baseline or '(no baseline: absolute limits only)'}"]
    if verdict.baseline is not None:
        lines.append(
            f"compared  {verdict.common_entries} common entries; shared metrics: "
            + (", ".join(verdict.shared_metrics) or "none")
        )
    if verdict.rows:
        lines.extend(_table(verdict.rows, verdict.options))
    lines.extend(f"note      {note}" for note in verdict.notes)
    failed = [row.metric for row in verdict.rows if not row.passed]
    if verdict.passed:
        lines.append("gate      PASSED")
    elif failed:
        lines.append("gate      FAILED: " + ", ".join(failed))
    else:
        lines.append("gate      FAILED")
    return lines


def _table(rows: Sequence[MetricVerdict], options: GateOptions) -> list[str]:
    level = f"{options.confidence:.0%} CI"
    header = ("metric", "baseline", "now", "delta", level, "p", "limit", "verdict")
    body = [
        (
            r.metric,
            fmt(r.metric, r.baseline),
            fmt(r.metric, r.now),
            fmt(r.metric, r.delta, signed=True),
            interval(r.metric, r.ci_lower, r.ci_upper),
            "-" if r.p_value is None else f"{r.p_value:.3f}",
            r.limit,
            r.verdict,
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in (header, *body)) for i in range(len(header) - 1)]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in (header, *body)
    ]


def fmt(metric: str, value: float | None, signed: bool = False) -> str:
    """A metric's value at its own precision: points with 2 decimals, shares with 4."""
    if value is None:
        return "-"
    definition = catalog.get(metric)
    digits = 2 if definition is not None and definition.points else 4
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def interval(metric: str, lower: float | None, upper: float | None) -> str:
    if lower is None or upper is None:
        return "-"
    return f"[{fmt(metric, lower, signed=True)}, {fmt(metric, upper, signed=True)}]"
