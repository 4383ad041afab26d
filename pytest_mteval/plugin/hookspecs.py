"""Hooks that other plugins and conftest.py files implement to extend pytest-mteval.

Each is an empty function whose docstring is the contract; pytest's plugin manager (pluggy)
calls every implementation it finds in installed plugins and conftest files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_mteval.corpus import Entry
    from pytest_mteval.methods.loader import MethodSource
    from pytest_mteval.methods.protocol import RunConfig, TranslationMethod
    from pytest_mteval.metrics.base import Metric, MetricContext


@pytest.hookspec
def pytest_mteval_methods(
    config: pytest.Config,
) -> Mapping[str, Callable[[RunConfig], TranslationMethod] | Path | MethodSource] | None:
    """Register named methods, so that ``--mteval-method=NAME`` finds them.

    Return a mapping of method name to a factory that builds the method from the run's
    RunConfig, or to a method folder (with method.json). Results of every implementation are
    merged; a name given twice is an error. pytest-mteval itself registers the methods it
    ships and those of the ``pytest_mteval.methods`` entry-point group this way.
    """


@pytest.hookspec
def pytest_mteval_metrics(context: MetricContext) -> list[Metric] | None:
    """Register extra metrics for this run.

    Called on the controller and on every xdist worker with the same context, so the returned
    metrics must be built deterministically from it. Their per-entry output lands in
    ``results[].plugin_metrics[<name>]`` and their aggregate in ``scores.plugin_metrics``;
    the run-level metrics a family declares in ``definitions`` (``metrics/catalog.py``) are
    registered and scored into ``scores.<name>`` like the built-ins.
    """


@pytest.hookspec(firstresult=True)
def pytest_mteval_equivalent(entry: Entry, predicted: str) -> bool | None:
    """Decide whether ``predicted`` is an acceptable equivalent of the entry's reference.

    A language plugin (for example a Plains Cree structural linter) returns True or False;
    returning None leaves the decision to the next implementation and finally to the
    built-in comparison against the reference and the entry's ``variants``.
    """


@pytest.hookspec
def pytest_mteval_run_card(card: dict[str, Any], config: pytest.Config) -> None:
    """Observe or extend the run card before it is hashed and written.

    Implementations may add keys (preferably under ``extensions``) or read the card; the
    card's hash is computed after every implementation has run. The card's ``results`` rows
    are the run's own records (``run/kept_record.py``): a change to a row is one to the record
    that the run's later reports (the HTML page, ``--mteval-compare``) read too.
    """
