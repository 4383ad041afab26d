"""pytest hooks of pytest-mteval, and nothing else: each hook hands over to a module that
knows nothing of pytest's hook names."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import uuid
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.cards.baseline import BaselineUpdate
from pytest_mteval.cards.gate import gate_lines
from pytest_mteval.cards.identity import planned_fingerprint
from pytest_mteval.corpus import Entry
from pytest_mteval.errors import MtevalError
from pytest_mteval.history.session import compare_lines, record_and_prune
from pytest_mteval.methods.loader import Registered
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.methods.protocol import TranslationMethod
from pytest_mteval.methods.registry import installed_methods
from pytest_mteval.plugin import hookspecs
from pytest_mteval.plugin.begin_run import StartError, start_run
from pytest_mteval.plugin.collect import CorpusFile, EntryItem
from pytest_mteval.plugin.end_run import (
    FinishedRun,
    baseline_message,
    finish_run,
    update_baseline,
)
from pytest_mteval.plugin.gate_item import GATE_LOCATION, GATE_NODEID, baseline_note, gate_reports
from pytest_mteval.plugin.options import add_options
from pytest_mteval.plugin.sweep_command import run_sweep_command
from pytest_mteval.reports.terminal import summary_lines
from pytest_mteval.run.dry_run import estimate, estimate_lines, write_estimate
from pytest_mteval.run.ledger import Ledger, stop_reason
from pytest_mteval.run.state import RunState
from pytest_mteval.sweep.plan import SweepError

STATE = pytest.StashKey[RunState]()
RECORD = pytest.StashKey[dict[str, Any]]()
MTEVAL_FIXTURES = frozenset({"mteval_entry", "mteval_result", "mteval_method"})


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--mteval-sweep``: this invocation runs the sweep's runs instead of a session."""
    try:
        return run_sweep_command(config)
    except SweepError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_mteval_methods(config: pytest.Config) -> dict[str, Registered]:
    """The methods shipped with pytest-mteval and those installed through entry points."""
    return installed_methods()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mteval: a corpus entry evaluated by pytest-mteval")
    try:
        state, card = start_run(config)
    except StartError as exc:
        raise pytest.UsageError(str(exc)) from None
    if state is None:
        return
    config.stash[STATE] = state
    run = ActiveRun(config, state, card)
    config.pluginmanager.register(run, "mteval-run")
    if not _covered_by_args(config, state.corpus.path):
        config.args.append(str(state.corpus.path))
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "mteval-xdist")
        if not hasattr(config, "workerinput"):
            config.pluginmanager.register(XdistAccounting(run.ledger), "mteval-xdist-ledger")


def _covered_by_args(config: pytest.Config, corpus: Path) -> bool:
    """Whether collecting ``config.args`` already reaches the corpus file."""
    base = config.invocation_params.dir
    for arg in config.args:
        target = (base / arg.split("::", 1)[0]).resolve()
        if corpus == target or corpus.is_relative_to(target):
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "mteval_entry" not in metafunc.fixturenames and "mteval_result" not in metafunc.fixturenames:
        return
    state = metafunc.config.stash.get(STATE, None)
    entries = list(state.corpus.entries) if state else []
    ids = state.names if state else []
    metafunc.parametrize("mteval_entry", entries, ids=ids)


@pytest.fixture
def mteval_entry() -> Entry:
    """The corpus entry of this test (parametrized over the corpus by pytest-mteval)."""
    pytest.skip("no --mteval-corpus given")


@pytest.fixture
def mteval_result(request: pytest.FixtureRequest, mteval_entry: Entry) -> Mapping[str, Any]:
    """The entry's record: prediction and metrics, the same one the entry item reports."""
    state = request.config.stash[STATE]
    record = state.record_for(state.index_of[mteval_entry.key])
    request.node.stash[RECORD] = record
    return record


@pytest.fixture
def mteval_method(request: pytest.FixtureRequest) -> TranslationMethod:
    """The method under evaluation, as built for this run."""
    state = request.config.stash.get(STATE, None)
    if state is None:
        pytest.skip("no --mteval-corpus given")
    return state.method


class ActiveRun:
    """The hooks of an evaluation, registered only when ``--mteval-corpus`` is given."""

    def __init__(self, config: pytest.Config, state: RunState, card: MethodCard | None) -> None:
        self.config = config
        self.state = state
        self.run_id = str(uuid.uuid4())
        self.timestamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self.started = time.perf_counter()
        self.method_card = card
        self.finished: FinishedRun | None = None
        self.estimate: dict[str, Any] | None = None
        self.baseline_update: BaselineUpdate | None = None
        self.history_lines: list[str] = []
        self.ledger = Ledger(
            {name: e.key for name, e in zip(state.names, state.corpus.entries, strict=True)}
        )
        self.finish_failure: str | None = None
        self.interrupted = False

    def pytest_unconfigure(self) -> None:
        # after Ctrl-C, batches still in a runner get one second, then the runner is killed
        self.state.translator.drain(1.0 if self.interrupted else None)
        self.state.translator.close()
        if self.state.isolation is not None:
            self.state.isolation.close()

    def pytest_keyboard_interrupt(self) -> None:
        self.interrupted = True

    def _extend_card(self, card: dict[str, Any]) -> None:
        """The runner's mode, sandbox and gateway, and an interruption, then plugins' hooks."""
        isolation = self.state.isolation
        card["runner"] = isolation.card() if isolation else {"mode": "inprocess", "sandbox": "none"}
        card["interrupted"] = self.interrupted
        self.config.hook.pytest_mteval_run_card(card=card, config=self.config)

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.resolve() != self.state.corpus.path:
            return None
        node = CorpusFile.from_parent(parent, path=file_path, nodeid=self._corpus_nodeid())
        node.state = self.state
        return node

    def _corpus_nodeid(self) -> str | None:
        """Outside the rootdir pytest would give the corpus an empty node id; name it by its
        path relative to the rootdir instead (``../data/x.json``)."""
        rootpath = self.config.rootpath
        corpus = self.state.corpus.path
        return None if corpus.is_relative_to(rootpath) else os.path.relpath(corpus, rootpath)

    def pytest_sessionstart(self) -> None:
        """Let ``--lf`` find a corpus outside the rootdir: pytest joins failed node ids onto
        the rootdir without normalizing '..', so it would not recognize the corpus file."""
        lf = self.config.pluginmanager.get_plugin("lfplugin")
        nodeid = self._corpus_nodeid()
        paths = getattr(lf, "_last_failed_paths", None)
        if nodeid is None or not getattr(lf, "active", False) or not isinstance(paths, set):
            return
        if any(str(failed).startswith(nodeid + "::") for failed in getattr(lf, "lastfailed", {})):
            paths.add(self.state.corpus.path)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """With no explicit paths, run the evaluation and mteval tests, not unrelated suites."""
        if self.config.args_source == pytest.Config.ArgsSource.ARGS:
            return
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            fixtures = set(getattr(item, "fixturenames", ()))
            related = isinstance(item, EntryItem) or bool(MTEVAL_FIXTURES & fixtures)
            (keep if related else drop).append(item)
        if drop:
            self.config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.ledger.collect_ids(item.nodeid for item in session.items)
        if self.state.settings.dry_run:
            self.estimate = estimate(self.state)
            if self.state.settings.estimate_json is not None:
                self.estimate["fingerprint"] = planned_fingerprint(self.state)
                write_estimate(self.state.settings.estimate_json, self.estimate)
        elif not hasattr(self.config, "workerinput"):
            self.state.translator.plan(self._batch_order(session.items))

    def _batch_order(self, items: list[pytest.Item]) -> list[int]:
        """The batches a serial run will translate, in the order its items need them."""
        keys: list[str] = []
        for item in items:
            if isinstance(item, EntryItem):
                keys.append(self.state.corpus.entries[item.index].key)
                continue
            entry = getattr(getattr(item, "callspec", None), "params", {}).get("mteval_entry")
            if isinstance(entry, Entry):
                keys.append(entry.key)
        return self.state.batch_order(keys)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> bool | None:
        """A dry run stops after collection: nothing is translated, no card is written."""
        return True if self.state.settings.dry_run else None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "call":
            record = item.record if isinstance(item, EntryItem) else item.stash.get(RECORD, None)
            if record is not None and hasattr(self.config, "workerinput"):
                # To the controller as one JSON string: xdist's wire format (execnet) encodes
                # nested builtins in pure Python, five times slower than the C JSON encoder.
                report.mteval_record = json.dumps(record, ensure_ascii=False)  # type: ignore[attr-defined]
            elif record is not None:
                report.mteval_record = record  # type: ignore[attr-defined]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        found = getattr(report, "mteval_record", None)
        if found is None and report.failed:
            self.ledger.no_record(report.nodeid, _failure_reason(report))
        if found is None or report.when != "call":
            return
        record = json.loads(found) if isinstance(found, str) else found
        self.state.records[record["entry_id"]] = record

    @pytest.hookimpl(tryfirst=True)  # before junitxml and the terminal summary read the reports
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):
            return
        if self.state.settings.dry_run or self.config.option.collectonly:
            return  # nothing was meant to run: no card, no rows for entries
        self.ledger.stop_reason = stop_reason(
            session.exitstatus == pytest.ExitCode.INTERRUPTED,
            session.shouldstop,
            session.shouldfail,
            getattr(self.config.pluginmanager.get_plugin("dsession"), "shouldstop", None),
        )
        missing = self.ledger.missing(self.state.records)
        if not self.state.records and not missing:
            return
        try:
            self._finish(session, missing)
        except MtevalError as exc:
            self.finish_failure = str(exc)
            _fail(session)

    def _finish(self, session: pytest.Session, missing: dict[str, str]) -> None:
        self.finished = finish_run(
            self.state,
            self.run_id,
            self.timestamp,
            time.perf_counter() - self.started,
            self.method_card,
            self._extend_card,
            self._default_card_path(),
            missing,
        )
        self._history()
        if self._gated():
            self._report_gate(session)
        if not self.finished.written:
            self.finish_failure = f"run card {self.finished.card_path}"
            _fail(session)
        elif not self.finished.verdict.passed or self.finished.planted:
            _fail(session)
        elif self.state.settings.update_baseline:
            passed = session.exitstatus == pytest.ExitCode.OK
            self.baseline_update = update_baseline(self.state, self.finished.card, passed)
            if self.baseline_update.failed:
                self.finish_failure = f"baseline {baseline_message(self.baseline_update)}"
                _fail(session)

    def _history(self) -> None:
        """Compare with a saved run if asked (before this run becomes "latest"), then index."""
        assert self.finished is not None
        runs_dir = self.config.rootpath / ".mteval" / "runs"
        settings = self.state.settings
        card = self.finished.card
        if settings.compare:
            records = sorted(self.state.records.values(), key=lambda r: int(r["index"]))
            base = self.config.invocation_params.dir
            self.history_lines = compare_lines(runs_dir, settings.compare, base, card, records)
        path = Path(self.finished.card_path)
        if path.is_file():
            self.history_lines += record_and_prune(runs_dir, card, path, settings.keep_runs)

    def _gated(self) -> bool:
        settings = self.state.settings
        gate = settings.gate
        return bool(settings.baseline or gate.fail_under is not None or gate.metric_gates)

    def _report_gate(self, session: pytest.Session) -> None:
        """The gate as the session's last item, ``mteval::gate``, counted by every reporter."""
        assert self.finished is not None
        settings = self.state.settings
        note = baseline_note(self.state.baseline_load, settings.update_baseline)
        notes = [note] if note and self.state.baseline is None else []
        hook = self.config.hook
        session.testscollected += 1
        hook.pytest_runtest_logstart(nodeid=GATE_NODEID, location=GATE_LOCATION)
        style = str(self.config.getoption("tbstyle", "auto"))
        for report in gate_reports(self.finished.verdict, notes, style):
            hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=GATE_NODEID, location=GATE_LOCATION)

    def _default_card_path(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        return self.config.rootpath / ".mteval" / "runs" / f"{stamp}-{self.run_id[:8]}.json"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.estimate is not None:
            terminalreporter.section("mteval dry run")
            for line in estimate_lines(self.estimate):
                terminalreporter.write_line(line)
        if self.finish_failure is not None:
            terminalreporter.write_line(f"mteval: {self.finish_failure}", red=True)
        finished = self.finished
        if finished is None:
            return
        terminalreporter.section("mteval")
        for line in summary_lines(finished.card, finished.card_path):
            terminalreporter.write_line(line)
        if self.history_lines:
            compared = bool(self.state.settings.compare)
            terminalreporter.section("mteval compare" if compared else "mteval history")
            for line in self.history_lines:
                terminalreporter.write_line(line)
        if finished.report_path is not None:
            terminalreporter.write_line(f"html report {finished.report_path}")
        settings = self.state.settings
        gated = (
            settings.baseline or settings.gate.fail_under is not None or settings.gate.metric_gates
        )
        if not gated and finished.verdict.passed:
            return
        failed = not finished.verdict.passed
        terminalreporter.section("mteval gate", red=failed, green=not failed)
        load = self.state.baseline_load
        note = baseline_note(load, settings.update_baseline)
        changed = load is not None and load.dataset_change is not None
        if note and (self.state.baseline is None or changed):
            terminalreporter.write_line(note)  # the gate lines name a baseline already
        for line in gate_lines(finished.verdict):
            terminalreporter.write_line(line)
        if self.baseline_update is not None:
            terminalreporter.write_line(f"baseline {baseline_message(self.baseline_update)}")


class XdistHooks:
    """Registered only when pytest-xdist is installed."""

    def pytest_configure_node(self, node: Any) -> None:
        """Workers' sandboxed runners use the controller's one LLM gateway."""
        state = node.config.stash.get(STATE, None)
        socket = getattr(state.isolation, "gateway_socket", None) if state else None
        if socket:
            node.workerinput["mteval_gateway_socket"] = socket

    @pytest.hookimpl(trylast=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        from pytest_mteval.plugin.schedule import BatchScheduling

        if config.getoption("dist") == "each":
            return None
        return BatchScheduling(config, log, config.stash[STATE].batch_of_name)


class XdistAccounting:
    """What the controller learns of workers: what each collected, and which crashed."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.ledger.collect_ids(ids)

    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        self.ledger.worker_crashed(_worker_id(report), crashitem)

    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        if error is not None:
            self.ledger.worker_crashed(_worker_id(node), None)


def _fail(session: pytest.Session) -> None:
    """Fail the session, keeping a more telling status (interrupted) when there is one."""
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _worker_id(thing: Any) -> str:
    node = getattr(thing, "node", thing)
    gateway = getattr(node, "gateway", None)
    return str(getattr(gateway, "id", None) or getattr(node, "workerid", "?"))


def _failure_reason(report: pytest.TestReport) -> str:
    """One line for an entry whose item failed before it produced a record."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = str(getattr(crash, "message", "") or "").strip()
    text = message.splitlines() or str(report.longrepr or "").strip().splitlines()
    last = next((line for line in text if line.strip()), "no detail")
    return f"internal error: {last.strip()[:300]}"
