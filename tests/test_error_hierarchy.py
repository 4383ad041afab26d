"""Every error the project shows a user derives from ``MtevalError``.

Callers (the pytest layer, ``mteval``) catch that one base to print a one-line message instead
of a traceback; an error class that forgets it escapes as a traceback. The exceptions below are
internal signals that never reach a user as such: each is caught and turned into an entry
error or a pytest failure report where it is raised.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest_mteval
from pytest_mteval.errors import MtevalError

INTERNAL = {
    # pytest failure reports for one item (collect.py renders them)
    "pytest_mteval.plugin.collect.EntryError",
    "pytest_mteval.plugin.collect.EntryRegression",
    "pytest_mteval.plugin.gate_item.GateFailed",
    # runner and gateway plumbing: caught where raised, recorded on the entry
    "pytest_mteval.run.runner_protocol.ProtocolError",
    "pytest_mteval.run.gateway_upstream.UpstreamError",
    "pytest_mteval.run.gateway_request.BadRequest",
    "pytest_mteval.run.entry_scoring.ScoringTimeout",
    "pytest_mteval.run.result_model._FieldError",
    "pytest_mteval.run.result_model.ResultProblem",
    "pytest_mteval.run.batch_translation.HarnessTimeout",
    # ValueErrors that pydantic and the JS audit turn into a field error or a finding
    "pytest_mteval.methods.licences.LicenceSyntaxError",
    "pytest_mteval.methods.audit_js.JsSyntaxError",
    # a TER trace outside the beam: caught in ter_edits, which hands the pair to sacrebleu
    "pytest_mteval.metrics.ter_edits._Unreachable",
}


def _project_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(pytest_mteval.__path__, "pytest_mteval."):
        if ".shipped." in module_info.name:
            continue  # method folders, loaded as methods
        module = importlib.import_module(module_info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == module.__name__:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_user_facing_error_derives_from_mteval_error() -> None:
    found = _project_exceptions()
    assert len(found) > 20, "the walk found too few exception classes to be checking anything"
    strays = sorted(
        name
        for name, cls in found.items()
        if name not in INTERNAL and not issubclass(cls, MtevalError)
    )
    assert strays == []


def test_the_internal_list_names_only_classes_that_exist() -> None:
    """A renamed internal exception must leave this list, so the list cannot hide a new one."""
    assert set(_project_exceptions()) >= INTERNAL
