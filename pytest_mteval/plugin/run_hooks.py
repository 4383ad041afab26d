"""The hooks of a run, registered when ``--mteval-corpus`` starts one: collection of the
corpus, reports, the gate item, the summary and xdist. Kept apart from ``hooks.py`` so that a
session without a corpus imports none of it."""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.cards.run_fingerprint import planned_fingerprint
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.plugin import redact_reports as redact
from pytest_mteval.plugin.begin_run import Contributions, StartError, start_run
from pytest_mteval.plugin.collect import CorpusFile, EntryItem, batch_order
from pytest_mteval.plugin.failure_groups import FailureGroups, pytest_wrote_summary
from pytest_mteval.plugin.garbage_collection import RunGarbageCollection
from pytest_mteval.plugin.gate_item import GateItem, baseline_note
from pytest_mteval.plugin.last_failed import collect_corpus, corpus_nodeid
from pytest_mteval.plugin.parallel_timing import ParallelTiming
from pytest_mteval.plugin.run_stash import KEYWORDS, RECORD, STATE
from pytest_mteval.plugin.session_end import Evaluation, end_session, failure_reason
from pytest_mteval.plugin.summary import write_summary
from pytest_mteval.plugin.termination import TerminationAsInterrupt
from pytest_mteval.plugin.xdist_internals import is_worker
from pytest_mteval.plugin.xdist_workers import WorkerAccounting, batch_scheduler, hand_gateway_to
from pytest_mteval.run.dry_run import estimate, write_estimate
from pytest_mteval.run.entry_ledger import Ledger
from pytest_mteval.run.kept_record import kept, on_the_wire
from pytest_mteval.run.run_state import RunState


def start_active_run(config: pytest.Config, contributions: Contributions) -> None:
    """Start the run the options ask for and register its hooks (nothing when none is asked)."""
    try:
        state, card = start_run(config, contributions)
    except StartError as exc:
        raise pytest.UsageError(str(exc)) from None
    if state is None:
        return
    config.stash[STATE] = state
    run = ActiveRun(config, state, card)
    config.pluginmanager.register(run, "mteval-run")
    run.collector.start(config)
    # Put back after pytest's own collections at unconfigure (the unraisable-exception
    # plugin's): a cleanup registered from here, before that plugin's configure, runs after
    # them, so they do not walk the whole frozen heap of imported modules once more.
    config.add_cleanup(run.collector.restore)
    run.termination.install()  # CI cancels with SIGTERM: end as after Ctrl-C, card written
    config.add_cleanup(run.termination.restore)
    if not is_worker(config):
        config.pluginmanager.register(GroupedFailures(run), "mteval-failure-groups")
    if not _covered_by_args(config, state.corpus.path):
        config.args.append(str(state.corpus.path))
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "mteval-xdist")
        if not is_worker(config):
            config.pluginmanager.register(XdistAccounting(run.run.ledger), "mteval-xdist-ledger")


def _covered_by_args(config: pytest.Config, corpus: Path) -> bool:
    """Whether collecting ``config.args`` already reaches the corpus file."""
    base = config.invocation_params.dir
    for arg in config.args:
        target = (base / arg.split("::", 1)[0]).resolve()
        if corpus == target or corpus.is_relative_to(target):
            return True
    return False


class ActiveRun:
    """The hooks of an evaluation, registered only when ``--mteval-corpus`` is given."""

    def __init__(self, config: pytest.Config, state: RunState, card: MethodCard | None) -> None:
        self.config = config
        self.state = state
        self.run = Evaluation(config, state, card)
        self.collector = RunGarbageCollection()
        self.hidden: set[str] = set()  # node ids whose reports were redacted (secret run)
        self.timing = ParallelTiming()  # did -n pay? (the controller under xdist)
        self.termination = TerminationAsInterrupt()
        self.failure_groups = FailureGroups()  # one report per root cause (the controller)

    def pytest_unconfigure(self) -> None:
        # after Ctrl-C, batches still in a runner get one second, then the runner is killed
        self.state.scoring.close()  # first: the scorer process ends before the runner does
        self.state.translator.drain(1.0 if self.run.interrupted else None)
        self.state.translator.close()
        if self.state.isolation is not None:
            self.state.isolation.close()

    def pytest_keyboard_interrupt(self) -> None:
        self.run.interrupted = True
        self.termination.interrupted()

    def _extend_card(self, card: dict[str, Any]) -> None:
        """The runner's mode, sandbox and gateway, and an interruption, then plugins' hooks."""
        isolation = self.state.isolation
        card["runner"] = isolation.card() if isolation else {"mode": "inprocess", "sandbox": "none"}
        card["interrupted"] = self.run.interrupted
        self.config.hook.pytest_mteval_run_card(card=card, config=self.config)

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.resolve() != self.state.corpus.path:
            return None
        node = CorpusFile.from_parent(
            parent, path=file_path, nodeid=corpus_nodeid(self.config, self.state.corpus.path)
        )
        node.state = self.state
        return node

    @pytest.hookimpl(tryfirst=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> pytest.CollectReport | None:
        """A corpus outside the rootdir is collected even under ``--lf`` (last_failed.py)."""
        if isinstance(collector, CorpusFile) and corpus_nodeid(self.config, self.state.corpus.path):
            return collect_corpus(collector)
        return None

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """With no explicit paths, run the evaluation and mteval tests, not unrelated suites."""
        if self.config.args_source == pytest.Config.ArgsSource.ARGS:
            return
        keep = [item for item in items if redact.uses_entries(item)]
        drop = [item for item in items if not redact.uses_entries(item)]
        if drop:
            self.config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.run.ledger.collect_ids(item.nodeid for item in session.items)
        if self.state.settings.dry_run:
            self.run.estimate = planned = estimate(self.state)
            if self.state.settings.estimate_json is not None:
                planned["fingerprint"] = planned_fingerprint(self.state)
                write_estimate(self.state.settings.estimate_json, planned)
        elif not is_worker(self.config):
            self.state.translator.plan(batch_order(self.state, session.items))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> bool | None:
        """A dry run stops after collection: nothing is translated, no card is written."""
        return True if self.state.settings.dry_run else None

    @pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: others' changes are redacted too
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        redact.redact_report(item, call, report, self.state.secrecy, self.hidden)
        if isinstance(item, EntryItem):  # its three reports live to the session's end: one
            first = item.stash.setdefault(KEYWORDS, report.keywords)  # keywords map for all
            if first is not report.keywords and first == report.keywords:
                report.keywords = first
        if call.when == "call":
            record = item.record if isinstance(item, EntryItem) else item.stash.get(RECORD, None)
            if record is not None and is_worker(self.config):
                # To the controller as one JSON string: xdist's wire format (execnet) encodes
                # nested builtins in pure Python, five times slower than the C JSON encoder.
                wire = on_the_wire(record)
                report.mteval_record = json.dumps(wire, ensure_ascii=False)  # type: ignore[attr-defined]
            elif record is not None:
                report.mteval_record = record  # type: ignore[attr-defined]
        return report

    @pytest.hookimpl(tryfirst=True)  # before the terminal keeps the warning's text
    def pytest_warning_recorded(self, warning_message: Any, nodeid: str) -> None:
        redact.redact_warning(warning_message, nodeid in self.hidden)

    @pytest.hookimpl(tryfirst=True)  # a subtest's report is made outside makereport's wrapper
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        redact.redact_logged(report, self.hidden)
        self.timing.logged(report)
        found = getattr(report, "mteval_record", None)
        if found is None and report.failed:
            self.run.ledger.no_record(report.nodeid, failure_reason(report))
        if found is None or report.when != "call" or is_worker(self.config):
            return  # on a worker the JSON travels on to the controller with the report
        # A worker's record arrives as JSON: copies of its texts, shared once decoded.
        record = kept(self.state.adopted(json.loads(found))) if isinstance(found, str) else found
        self.state.records[record["entry_id"]] = record
        # The record is the run's, not the report's: plugins that keep or serialise reports
        # (pytest-reportlog, xdist's looponfail, a conftest) never see a secret run's texts,
        # and the reports of passing entries, kept to the session's end, hold no copy of them.
        del report.mteval_record

    @pytest.hookimpl(tryfirst=True)  # before junitxml and the terminal summary read the reports
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not is_worker(self.config):
            self.timing.end()
            end_session(self.run, session, self._extend_card, self._report_gate)

    def _report_gate(self, session: pytest.Session) -> None:
        """The gate as the session's last item, ``mteval::gate``, counted by every reporter."""
        assert self.run.finished is not None
        settings = self.state.settings
        note = baseline_note(self.state.baseline_load, settings.update_baseline)
        notes = [note] if note and self.state.baseline is None else []
        session.testscollected += 1  # the progress counts it: "[100%]", not "[102%]"
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and reporter.verbosity <= 0:
            # The entries' line already ends "[100%]": the gate starts a line of its own, not
            # a second "[ 92%]" (nor, under xdist, a "." after "[100%]") on that one.
            reporter.currentfspath = None
            if not reporter.showfspath:  # xdist's controller writes no file names
                reporter.write_line("")
                reporter.write("mteval ")
        item = GateItem.for_session(session, self.run.finished.verdict, notes)
        self.config.hook.pytest_runtest_protocol(item=item, nextitem=None)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write_summary(self.run, terminalreporter, self.timing.advice())
        self.failure_groups.hide_firsts(terminalreporter.stats)  # GroupedFailures shows them


class GroupedFailures:
    """Around pytest's terminal summary: entries failed by one error shown as one group."""

    def __init__(self, run: ActiveRun) -> None:
        self.run = run

    @pytest.hookimpl(wrapper=True, tryfirst=True)  # outside the terminal reporter's wrapper
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, None, None]:
        groups = self.run.failure_groups
        errors = (r["error"] for r in self.run.state.records.values() if r["error"])
        groups.hold(terminalreporter.stats, errors)
        try:
            return (yield)
        finally:
            lines = groups.short_lines()
            if lines and terminalreporter.hasopt("f"):
                stats, chars = terminalreporter.stats, terminalreporter.reportchars
                if not pytest_wrote_summary(stats, chars):
                    terminalreporter.write_sep("=", "short test summary info", cyan=True)
                for nodeid, reason in lines:
                    terminalreporter.write("FAILED", red=True)
                    terminalreporter.write_line(f" {nodeid} - {reason}")
            groups.release(terminalreporter.stats)


class XdistHooks:
    """Registered only when pytest-xdist is installed."""

    def pytest_configure_node(self, node: Any) -> None:
        hand_gateway_to(node, node.config.stash.get(STATE, None))

    @pytest.hookimpl(trylast=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return batch_scheduler(config, log, config.stash[STATE])


class XdistAccounting:
    """On the controller: what workers collected, and which of them crashed."""

    def __init__(self, ledger: Ledger) -> None:
        self.accounting = WorkerAccounting(ledger)

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.accounting.collected(ids)

    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        self.accounting.item_crashed(crashitem, report)

    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        self.accounting.node_down(node, error)
