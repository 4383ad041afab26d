"""The end of a run on the controller: card, gate verdict, sealed file, baseline update."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.build_card import build_card
from pytest_mteval.cache import cache_totals
from pytest_mteval.cards.signing import sign
from pytest_mteval.gate import GateVerdict, evaluate_gate
from pytest_mteval.methods.audit import audit_flags
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.run.redaction import redact_card
from pytest_mteval.runcard import RunCardError, replace, seal, write_new
from pytest_mteval.state import RunState


@dataclass
class FinishedRun:
    card: dict[str, Any]
    card_path: str
    verdict: GateVerdict
    planted: bool = False  # someone else created the card path during the run


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
    if state.audit is not None:
        card["method"]["audit"] = state.audit
        card["flags"].extend(audit_flags(state.audit))
    target = state.settings.run_card or default_path
    planted = target.exists() and not state.card_path_existed
    if planted:
        card["flags"].append(
            {
                "code": "card_path_planted",
                "message": f"{target} appeared during the run and was not written by the "
                "harness (by the method?): it is not this run's card, which is written beside it",
                "entry_ids": [],
            }
        )
    extend(card)
    if state.secrecy.withheld:
        redact_card(card, state.secrecy, records)
    seal(card)
    if state.signer is not None:
        sign(card, state.signer)
    try:
        path = str(write_new(card, target))
    except (OSError, RunCardError) as exc:
        path = f"NOT WRITTEN: {exc}"
    return FinishedRun(card, path, verdict, planted)


def update_baseline(state: RunState, card: dict[str, Any], passed: bool) -> str:
    """Write a passing, complete run's card over the baseline; say what happened."""
    settings = state.settings
    if settings.baseline is None:
        return "not updated: --mteval-update-baseline needs --mteval-baseline"
    if not passed:
        return "not updated: the run did not pass"
    filtered = settings.segments or settings.domains or settings.difficulties
    if filtered or len(state.records) != len(state.corpus.entries):
        return "not updated: the run did not cover the whole corpus"
    replace(card, settings.baseline)
    return f"written to {settings.baseline}"
