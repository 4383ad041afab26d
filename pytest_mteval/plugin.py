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

from pytest_mteval import hookspecs
from pytest_mteval.collect import CorpusFile, EntryItem
from pytest_mteval.corpus import Entry
from pytest_mteval.dry_run import estimate, estimate_lines
from pytest_mteval.finish import FinishedRun, finish_run, update_baseline
from pytest_mteval.gate import gate_lines
from pytest_mteval.methods.manifest import MethodCard
from pytest_mteval.methods.protocol import TranslationMethod
from pytest_mteval.options import add_options
from pytest_mteval.report import summary_lines
from pytest_mteval.start import StartError, start_run
from pytest_mteval.state import RunState

STATE = pytest.StashKey[RunState]()
RECORD = pytest.StashKey[dict[str, Any]]()
MTEVAL_FIXTURES = frozenset({"mteval_entry", "mteval_result", "mteval_method"})


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mteval: a corpus entry evaluated by pytest-mteval")
    try:
        state, card = start_run(config)
    except StartError as exc:
        raise pytest.UsageError(str(exc)) from None
    if state is None:
        return
    config.stash[STATE] = state
    config.pluginmanager.register(ActiveRun(config, state, card), "mteval-run")
    if not _covered_by_args(config, state.corpus.path):
        config.args.append(str(state.corpus.path))
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(), "mteval-xdist")


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
        self.baseline_written: str | None = None

    def pytest_unconfigure(self) -> None:
        self.state.translator.drain()
        self.state.runner.close()

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
        if self.state.settings.dry_run:
            self.estimate = estimate(self.state)
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
        if found is None or report.when != "call":
            return
        record = json.loads(found) if isinstance(found, str) else found
        self.state.records[record["entry_id"]] = record

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput") or not self.state.records:
            return
        self.finished = finish_run(
            self.state,
            self.run_id,
            self.timestamp,
            time.perf_counter() - self.started,
            self.method_card,
            lambda card: self.config.hook.pytest_mteval_run_card(card=card, config=self.config),
            self._default_card_path(),
        )
        if not self.finished.verdict.passed or self.finished.planted:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif self.state.settings.update_baseline:
            passed = session.exitstatus == pytest.ExitCode.OK
            self.baseline_written = update_baseline(self.state, self.finished.card, passed)

    def _default_card_path(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        return self.config.rootpath / ".mteval" / "runs" / f"{stamp}-{self.run_id[:8]}.json"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.estimate is not None:
            terminalreporter.section("mteval dry run")
            for line in estimate_lines(self.estimate):
                terminalreporter.write_line(line)
        finished = self.finished
        if finished is None:
            return
        terminalreporter.section("mteval")
        for line in summary_lines(finished.card, finished.card_path):
            terminalreporter.write_line(line)
        settings = self.state.settings
        gated = (
            settings.baseline or settings.gate.fail_under is not None or settings.gate.metric_gates
        )
        if not gated and finished.verdict.passed:
            return
        failed = not finished.verdict.passed
        terminalreporter.section("mteval gate", red=failed, green=not failed)
        note = self.state.baseline_note
        if note and (self.state.baseline is None or "dataset changed" in note):
            terminalreporter.write_line(note)  # the gate lines name a baseline already
        for line in gate_lines(finished.verdict):
            terminalreporter.write_line(line)
        if self.baseline_written:
            terminalreporter.write_line(f"baseline {self.baseline_written}")


class XdistHooks:
    """Registered only when pytest-xdist is installed."""

    @pytest.hookimpl(trylast=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        from pytest_mteval.schedule import BatchScheduling

        if config.getoption("dist") == "each":
            return None
        return BatchScheduling(config, log, config.stash[STATE].batch_of_name)
