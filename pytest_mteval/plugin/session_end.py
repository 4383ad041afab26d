"""The end of an evaluation session on the controller: the card, history, gate and baseline,
and the session's exit status. ``hooks.py`` calls in here from its hooks; what must go back
through pytest's hooks (plugins extending the card, the gate reported as an item) comes in
as callables, so that this module knows no hook name."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.cards.baseline import BaselineUpdate
from pytest_mteval.cards.runcard import built
from pytest_mteval.errors import MtevalError
from pytest_mteval.history.finished_session import compare_lines, record_and_prune
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.metrics.entry_record import record_index
from pytest_mteval.plugin.end_run import (
    FinishedRun,
    baseline_message,
    finish_run,
    update_baseline,
)
from pytest_mteval.plugin.xdist_internals import controller_stop
from pytest_mteval.run.entry_ledger import Ledger, stop_reason
from pytest_mteval.run.run_state import RunState


@dataclass
class Evaluation:
    """What one evaluation session knows and learns, from configure to the terminal summary."""

    config: pytest.Config
    state: RunState
    method_card: MethodCard | None
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    timestamp: str = field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    )
    started: float = field(default_factory=time.perf_counter)
    finished: FinishedRun | None = None
    estimate: dict[str, Any] | None = None
    baseline_update: BaselineUpdate | None = None
    history_lines: list[str] = field(default_factory=list)
    finish_failure: str | None = None
    interrupted: bool = False

    def __post_init__(self) -> None:
        state = self.state
        self.ledger = Ledger(
            {name: e.key for name, e in zip(state.names, state.corpus.entries, strict=True)}
        )

    def gated(self) -> bool:
        settings = self.state.settings
        gate = settings.gate
        return bool(settings.baseline or gate.fail_under is not None or gate.metric_gates)

    def default_card_path(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        return self.config.rootpath / ".mteval" / "runs" / f"{stamp}-{self.run_id[:8]}.json"


def end_session(
    run: Evaluation,
    session: pytest.Session,
    extend: Callable[[dict[str, Any]], None],
    report_gate: Callable[[pytest.Session], None],
) -> None:
    """Card, gate and baseline once every entry has reported (or been given up on)."""
    state = run.state
    if state.settings.dry_run or run.config.option.collectonly:
        return  # nothing was meant to run: no card, no rows for entries
    run.ledger.stop_reason = stop_reason(
        session.exitstatus == pytest.ExitCode.INTERRUPTED,
        session.shouldstop,
        session.shouldfail,
        controller_stop(run.config),
    )
    missing = run.ledger.missing(state.records)
    if not state.records and not missing:
        return
    try:
        _finish(run, session, missing, extend, report_gate)
    except MtevalError as exc:
        run.finish_failure = str(exc)
        fail(session)


def _finish(
    run: Evaluation,
    session: pytest.Session,
    missing: dict[str, str],
    extend: Callable[[dict[str, Any]], None],
    report_gate: Callable[[pytest.Session], None],
) -> None:
    state = run.state
    run.finished = finish_run(
        state,
        run.run_id,
        run.timestamp,
        time.perf_counter() - run.started,
        run.method_card,
        extend,
        run.default_card_path(),
        missing,
    )
    _history(run)
    if run.gated():
        report_gate(session)
    if not run.finished.written:
        run.finish_failure = f"run card {run.finished.card_path}"
        fail(session)
    elif not run.finished.verdict.passed or run.finished.planted:
        fail(session)
    elif state.settings.update_baseline:
        passed = session.exitstatus == pytest.ExitCode.OK
        run.baseline_update = update_baseline(state, run.finished.card, passed)
        if run.baseline_update.failed:
            run.finish_failure = f"baseline {baseline_message(run.baseline_update)}"
            fail(session)


def _history(run: Evaluation) -> None:
    """Compare with a saved run if asked (before this run becomes "latest"), then index."""
    assert run.finished is not None
    runs_dir = run.config.rootpath / ".mteval" / "runs"
    settings = run.state.settings
    card = built(run.finished.card)  # the sealed card, as the model its readers take
    if settings.compare:
        records = sorted(run.state.records.values(), key=record_index)
        base = run.config.invocation_params.dir
        run.history_lines = compare_lines(runs_dir, settings.compare, base, card, records)
    path = Path(run.finished.card_path)
    if path.is_file():
        run.history_lines += record_and_prune(runs_dir, card, path, settings.keep_runs)


def fail(session: pytest.Session) -> None:
    """Fail the session, keeping a more telling status (interrupted) when there is one."""
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def failure_reason(report: pytest.TestReport) -> str:
    """One line for an entry whose item failed before it produced a record."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = str(getattr(crash, "message", "") or "").strip()
    text = message.splitlines() or str(report.longrepr or "").strip().splitlines()
    last = next((line for line in text if line.strip()), "no detail")
    return f"internal error: {last.strip()[:300]}"
