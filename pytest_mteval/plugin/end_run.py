"""The end of a run on the controller: card, gate verdict, sealed file, baseline update."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.cards.build import build_card
from pytest_mteval.cards.gate import GateVerdict, evaluate_gate
from pytest_mteval.cards.runcard import RunCardError, replace, seal, write_new
from pytest_mteval.history.index import coverage
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.run.cache import cache_totals
from pytest_mteval.run.state import RunState


@dataclass
class FinishedRun:
    card: dict[str, Any]
    card_path: str
    verdict: GateVerdict
    report_path: str | None = None


def finish_run(
    state: RunState,
    run_id: str,
    timestamp: str,
    elapsed_s: float,
    method_card: MethodCard | None,
    extend: Callable[[dict[str, Any]], None],
    default_path: Path,
) -> FinishedRun:
    """Build, gate, let plugins extend (``extend``), seal and write the run's card."""
    # corpus order, whatever order workers reported in: resampling depends on it
    records = sorted(state.records.values(), key=lambda record: int(record["index"]))
    card = build_card(state, records, run_id, timestamp, elapsed_s, method_card)
    verdict = evaluate_gate(state.baseline, card, state.settings.gate, records)
    card["gate"] = {**verdict.to_json(), "baseline_note": state.baseline_note}
    fingerprint = state.translator.fingerprint or None  # None: no cache in use
    card["cache"] = {"method_fingerprint": fingerprint, **cache_totals(records)}
    card["coverage"] = coverage(len(records), len(state.corpus.entries), _filters(state))
    extend(card)
    seal(card)
    try:
        path = str(write_new(card, state.settings.run_card or default_path))
    except (OSError, RunCardError) as exc:
        path = f"NOT WRITTEN: {exc}"
    report = None
    if state.settings.html is not None:
        from pytest_mteval.reports.run_html import write_run_report  # matplotlib: only if asked

        report = write_run_report(
            card, state.settings.html, state.baseline, state.settings.entry_gate
        )
    return FinishedRun(card, path, verdict, report)


def _filters(state: RunState) -> list[str]:
    settings = state.settings
    named = {
        "--mteval-segment": settings.segments,
        "--mteval-domain": settings.domains,
        "--mteval-difficulty": settings.difficulties,
        "--mteval-entry": settings.entries,
    }
    return [name for name, given in named.items() if given]


def update_baseline(state: RunState, card: dict[str, Any], passed: bool) -> str:
    """Write a passing, complete run's card over the baseline; say what happened."""
    settings = state.settings
    if settings.baseline is None:
        return "not updated: --mteval-update-baseline needs --mteval-baseline"
    if not passed:
        return "not updated: the run did not pass"
    filtered = settings.segments or settings.domains or settings.difficulties or settings.entries
    if filtered or len(state.records) != len(state.corpus.entries):
        return "not updated: the run did not cover the whole corpus"
    replace(card, settings.baseline)
    return f"written to {settings.baseline}"
