"""The end of a run on the controller: card, gate verdict, sealed file, baseline update."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.cards.baseline import BaselineOutcome, BaselineUpdate, replace_baseline
from pytest_mteval.cards.build import build_card
from pytest_mteval.cards.coverage import coverage
from pytest_mteval.cards.exposure import exposure_flags
from pytest_mteval.cards.gate import GateVerdict, evaluate_gate
from pytest_mteval.cards.runcard import (
    RunCardError,
    built,
    check_before_sealing,
    not_json,
    seal,
    write_new,
)
from pytest_mteval.methods.audit import audit_flags
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics.entry_record import EntryRecord, record_index
from pytest_mteval.run.cache import cache_totals
from pytest_mteval.run.entry_ledger import incompleteness
from pytest_mteval.run.entry_scoring import build_record
from pytest_mteval.run.kept_record import kept
from pytest_mteval.run.redaction import redact_card
from pytest_mteval.run.run_state import RunState


@dataclass
class FinishedRun:
    card: dict[str, Any]
    #: Where the sealed card was written, or None with why not (``problem``).
    path: Path | None
    verdict: GateVerdict
    report_path: str | None = None
    planted: bool = False  # someone else created the card path during the run
    review_sample: Path | None = None  # a secret run's sample, sealed to the steward
    problem: str | None = None

    @property
    def written(self) -> bool:
        return self.path is not None

    @property
    def card_path(self) -> str:
        """Where the card is, as the summary shows it."""
        return str(self.path) if self.path is not None else f"NOT WRITTEN: {self.problem}"


def finish_run(
    state: RunState,
    run_id: str,
    timestamp: str,
    elapsed_s: float,
    method_card: MethodCard | None,
    extend: Callable[[dict[str, Any]], None],
    default_path: Path,
    missing: Mapping[str, str] | None = None,
) -> FinishedRun:
    """Build, gate, let plugins extend (``extend``), seal and write the run's card.

    ``missing`` holds the collected entries that reported no record, with the reason: each
    gets an errored row, the card says it is incomplete, and the gate refuses to pass it.
    """
    for key, reason in (missing or {}).items():
        state.records[key] = kept(lost_record(state, key, reason))
    # corpus order, whatever order workers reported in: resampling depends on it
    records = sorted(state.records.values(), key=record_index)
    card = build_card(state, records, run_id, timestamp, elapsed_s, method_card)
    incomplete = incompleteness(missing or {})
    card["complete"] = incomplete is None
    card["incomplete_reason"] = incomplete
    verdict = evaluate_gate(state.baseline, built(card), state.settings.gate, records)
    if incomplete is not None:
        verdict.passed = False
        verdict.notes.append(f"the gate does not pass an incomplete run: {incomplete}")
    card["gate"] = {**verdict.to_json(), "baseline_note": state.baseline_note}
    fingerprint = state.translator.fingerprint or None  # None: no cache in use
    card["cache"] = {"method_fingerprint": fingerprint, **cache_totals(records)}
    card["coverage"] = coverage(
        (r.get("segment") for r in records),
        len(state.corpus.entries),
        _filters(state),
        state.corpus.entries_in_segment,
    )
    if state.audit is not None:
        card["method"]["audit"] = state.audit
        card["flags"].extend(audit_flags(state.audit))
    card["flags"].extend(oracle_flags(state))
    if state.steward is not None:
        card["steward_authorisation"] = state.steward
    ds = state.corpus.dataset
    scored = (str(r.get("segment")) for r in records)
    card["flags"].extend(
        exposure_flags(state.source.manifest, ds.id, ds.version, state.corpus.sha256, scored)
    )
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
    check_before_sealing(card)  # RunCardError: a card that fails its own schema is not sealed
    review = None
    try:
        seal(card)
        if state.steward_key is not None and state.secrecy.withheld:
            from pytest_mteval.review.sealed_sample import seal_review_sample  # cryptography

            size = state.settings.review_sample_size
            review = seal_review_sample(card, records, state.steward_key, target.parent, size)
        if state.signer is not None:
            from pytest_mteval.cards.signing import sign  # cryptography: only a signed card

            sign(card, state.signer)
        path = write_new(card, target)
    except (TypeError, ValueError) as exc:  # a set, an object, NaN: found by the encoder
        where = not_json(card) or "the card"
        raise RunCardError(f"run card refused: field {where!r} is not plain JSON ({exc})") from None
    except (OSError, RunCardError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FinishedRun(card, None, verdict, planted=planted, problem=why)
    report = None
    if state.settings.html is not None:
        from pytest_mteval.reports.run_html import write_run_report  # matplotlib: only if asked

        report = write_run_report(
            card, state.settings.html, state.baseline, state.settings.entry_gate
        )
    return FinishedRun(card, path, verdict, report, planted, review_sample=review)


def _filters(state: RunState) -> list[str]:
    settings = state.settings
    named = {
        "--mteval-segment": settings.segments,
        "--mteval-domain": settings.domains,
        "--mteval-difficulty": settings.difficulties,
        "--mteval-entry": settings.entries,
    }
    return [name for name, given in named.items() if given]


def lost_record(state: RunState, key: str, reason: str) -> EntryRecord:
    """The row of an entry whose item never reported: an error saying why."""
    index = state.index_of[key]
    batch = state.batch_of_name[state.names[index]]
    result: MethodResult = {"predicted": None, "error": reason, "latency_s": None}
    return build_record(state.corpus.entries[index], index, batch, result, state.builtin_metrics)


def oracle_flags(state: RunState) -> list[dict[str, Any]]:
    """A note on a method run on a corpus its own data comes from (``oracle_for``)."""
    manifest, dataset = state.source.manifest, state.corpus.dataset.id
    if manifest is None or dataset not in manifest.oracle_for:
        return []
    message = (
        f"method {manifest.method_id!r} is an oracle on {dataset}: its data comes from this "
        "corpus (oracle_for in its method.json), so its score is a ceiling, not a fair result"
    )
    return [{"code": "oracle_method", "message": message, "entry_ids": []}]


def update_baseline(state: RunState, card: dict[str, Any], passed: bool) -> BaselineUpdate:
    """Write a passing, complete run's card over the baseline (``--mteval-update-baseline``)."""
    settings = state.settings
    filtered = settings.segments or settings.domains or settings.difficulties or settings.entries
    whole = not filtered and len(state.records) == len(state.corpus.entries)
    return replace_baseline(settings.baseline, card, passed, whole)


def baseline_message(update: BaselineUpdate) -> str:
    """What the terminal says after ``baseline``."""
    outcome = update.outcome
    if outcome is BaselineOutcome.NO_BASELINE:
        return "not updated: --mteval-update-baseline needs --mteval-baseline"
    if outcome is BaselineOutcome.RUN_FAILED:
        return "not updated: the run did not pass"
    if outcome is BaselineOutcome.INCOMPLETE:
        return f"not updated: the run is incomplete ({update.detail})"
    if outcome is BaselineOutcome.PARTIAL:
        return "not updated: the run did not cover the whole corpus"
    if outcome is BaselineOutcome.WRITE_FAILED:
        return f"NOT WRITTEN to {update.path}: {update.detail}"
    return f"written to {update.path}"
