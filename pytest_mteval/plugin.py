"""pytest hooks of pytest-mteval, and nothing else: each hook hands over to a module that
knows nothing of pytest's hook names."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval import hookspecs
from pytest_mteval.build_card import build_card
from pytest_mteval.collect import CorpusFile, EntryItem
from pytest_mteval.corpus import CorpusError, Entry, load_corpus
from pytest_mteval.methods.loader import MethodFactory, MethodLoadError, find_method
from pytest_mteval.methods.manifest import ManifestError, MethodCard, load_method_card
from pytest_mteval.methods.protocol import RunConfig, TranslationMethod
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.options import SettingsError, add_options, read_settings
from pytest_mteval.report import summary_lines
from pytest_mteval.runcard import RunCardError, seal, write_new
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
        state, card = _start(config)
    except (SettingsError, CorpusError, ManifestError, MethodLoadError) as exc:
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


def _start(config: pytest.Config) -> tuple[RunState | None, MethodCard | None]:
    settings = read_settings(config)
    if not settings.active or settings.corpus is None:
        return None, None
    if not settings.method:
        raise SettingsError("--mteval-corpus needs --mteval-method (a folder or a name)")
    corpus = load_corpus(settings.corpus.resolve()).filtered(
        settings.segments, settings.domains, settings.difficulties
    )
    if not corpus.entries:
        raise SettingsError(
            f"{corpus.path}: no entry matches the segment/domain/difficulty filters"
        )
    registered: dict[str, MethodFactory] = {}
    for found in config.hook.pytest_mteval_methods(config=config):
        for name, factory in (found or {}).items():
            if name in registered:
                raise SettingsError(f"method name {name!r} is registered twice")
            registered[name] = factory
    source = find_method(settings.method, config.invocation_params.dir, registered)
    ds = corpus.dataset
    if source.manifest and not source.manifest.supports(ds.source_language, ds.target_language):
        raise SettingsError(
            f"method {source.name!r} supports {source.manifest.supported_pairs}, "
            f"not {ds.source_language}>{ds.target_language}"
        )
    run_config = RunConfig(
        source_language=ds.source_language,
        target_language=ds.target_language,
        model=settings.model,
        temperature=settings.temperature,
        condition=settings.condition or "baseline",
        batch_size=settings.batch_size,
        concurrency=settings.concurrency,
        timeout_s=settings.timeout_s,
        method_args=settings.method_args,
        method_dir=str(source.directory or ""),
    )
    context = MetricContext(corpus=corpus)
    found_metrics = config.hook.pytest_mteval_metrics(context=context)
    plugins = [metric for found in found_metrics for metric in found or []]
    state = RunState(settings, corpus, source, run_config, plugin_metrics=plugins)
    card = load_method_card(settings.method_card) if settings.method_card else None
    return state, card


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
    index = state.corpus.entries.index(mteval_entry)
    record = state.record_for(index)
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
        self.card: dict[str, Any] | None = None
        self.card_path: str | None = None

    def pytest_unconfigure(self) -> None:
        self.state.runner.close()

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.resolve() != self.state.corpus.path:
            return None
        rootpath = self.config.rootpath
        # Outside the rootdir pytest would give the file an empty node id; name it instead.
        nodeid = None if file_path.is_relative_to(rootpath) else file_path.name
        node = CorpusFile.from_parent(parent, path=file_path, nodeid=nodeid)
        node.state = self.state
        return node

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

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "call":
            record = item.record if isinstance(item, EntryItem) else item.stash.get(RECORD, None)
            if record is not None:
                report.mteval_record = record  # type: ignore[attr-defined]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "mteval_record", None)
        if record is not None and report.when == "call":
            self.state.records[record["entry_id"]] = record

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput") or not self.state.records:
            return
        elapsed = time.perf_counter() - self.started
        records = list(self.state.records.values())
        card = build_card(
            self.state, records, self.run_id, self.timestamp, elapsed, self.method_card
        )
        self.config.hook.pytest_mteval_run_card(card=card, config=self.config)
        self.card = seal(card)
        target = self.state.settings.run_card or self._default_card_path()
        try:
            self.card_path = str(write_new(card, target))
        except (OSError, RunCardError) as exc:
            self.card_path = f"NOT WRITTEN: {exc}"

    def _default_card_path(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        return self.config.rootpath / ".mteval" / "runs" / f"{stamp}-{self.run_id[:8]}.json"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.card is None:
            return
        terminalreporter.section("mteval")
        for line in summary_lines(self.card, self.card_path or "-"):
            terminalreporter.write_line(line)


class XdistHooks:
    """Registered only when pytest-xdist is installed."""

    @pytest.hookimpl(trylast=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        from pytest_mteval.schedule import BatchScheduling

        if config.getoption("dist") == "each":
            return None
        return BatchScheduling(config, log, config.stash[STATE].batch_of_name)
