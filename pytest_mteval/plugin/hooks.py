"""pytest's entry point for pytest-mteval: hook specs, options and fixtures, and nothing
heavy. A session that names no corpus or sweep imports only this; the run's own hooks
(``run_hooks.py``) load when a run starts. The only modules that know hook names are this one
and ``run_hooks.py``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mteval.plugin import hookspecs
from pytest_mteval.plugin.garbage_collection import collection_paused
from pytest_mteval.plugin.option_table import add_options
from pytest_mteval.plugin.run_stash import RECORD, STATE, WORD_PREFETCH

if TYPE_CHECKING:
    from pytest_mteval.corpus import Entry
    from pytest_mteval.methods.loader import Registered
    from pytest_mteval.methods.protocol import TranslationMethod
    from pytest_mteval.plugin.begin_run import Contributions


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _asked(config: pytest.Config, name: str) -> bool:
    return bool(config.getoption(name) or config.getini(name))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--mteval-sweep``: this invocation runs the sweep's runs instead of a session."""
    if not _asked(config, "mteval_sweep"):
        return None
    from pytest_mteval.plugin.sweep_option import run_requested_sweep
    from pytest_mteval.sweep.plan import SweepError

    try:
        return run_requested_sweep(config)
    except SweepError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_mteval_methods(config: pytest.Config) -> dict[str, Registered]:
    """The methods shipped with pytest-mteval and those installed through entry points."""
    from pytest_mteval.methods.named_methods import installed_methods

    return installed_methods()


def _contributions(config: pytest.Config) -> Contributions:
    """Our hooks as other plugins implement them, asked by the run without their names."""
    from pytest_mteval.plugin.begin_run import Contributions

    hook = config.hook
    equivalent = hook.pytest_mteval_equivalent
    return Contributions(
        methods=lambda: hook.pytest_mteval_methods(config=config),
        metrics=lambda context: hook.pytest_mteval_metrics(context=context),
        judge=(
            (lambda entry, predicted: equivalent(entry=entry, predicted=predicted))
            if equivalent.get_hookimpls()
            else None
        ),
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mteval: a corpus entry evaluated by pytest-mteval")
    if not _asked(config, "mteval_corpus"):
        return  # no run: nothing else of the plugin is imported
    from pytest_mteval.plugin.word_prefetch import start_word_prefetch

    config.stash[WORD_PREFETCH] = start_word_prefetch(config)  # before the run's imports
    with collection_paused():
        from pytest_mteval.plugin.run_hooks import start_active_run

        start_active_run(config, _contributions(config))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "mteval_entry" not in metafunc.fixturenames and "mteval_result" not in metafunc.fixturenames:
        return
    from pytest_mteval.plugin.redact_reports import fixture_entries

    entries, ids = fixture_entries(metafunc.config.stash.get(STATE, None))
    metafunc.parametrize("mteval_entry", entries, ids=ids)


@pytest.fixture
def mteval_entry() -> Entry:
    """The corpus entry of this test (parametrized over the corpus by pytest-mteval)."""
    pytest.skip("no --mteval-corpus given")


@pytest.fixture
def mteval_result(request: pytest.FixtureRequest, mteval_entry: Entry) -> Mapping[str, Any]:
    """The entry's record: prediction and metrics, the same one the entry item reports."""
    from pytest_mteval.plugin.redact_reports import fixture_record

    state = request.config.stash[STATE]
    request.node.stash[RECORD] = record = state.record_for(state.index_of[mteval_entry.key])
    return fixture_record(record, state.secrecy)  # on a secret run, with a silent repr


@pytest.fixture
def mteval_method(request: pytest.FixtureRequest) -> TranslationMethod:
    """The method under evaluation, as built for this run."""
    state = request.config.stash.get(STATE, None)
    if state is None:
        pytest.skip("no --mteval-corpus given")
    return state.method
