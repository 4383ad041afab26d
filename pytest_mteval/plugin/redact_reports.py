"""The user's own per-entry tests on a secret run (scores only): what pytest reports of them.

The tests get the entry and its record with their text (they are code run in the harness, and
checking the text is their point), but pytest would print that text wherever it reports on
them: fixture values (``--setup-show``), locals (``-l``), the operands assertion rewriting
shows, exception messages, captured output, ``record_property`` values and xfail reasons, on
the terminal and in junit. Two layers keep it off:

- the objects the fixtures hand over have reprs naming only the id (``SecretEntry``,
  ``WithheldRecord``), which covers ``--setup-show`` and any repr a plugin takes;
- every report of an item using the entries is rewritten where it is made (before the
  terminal, junitxml, xdist or any other plugin sees it): the failure becomes one line, the
  test's location and the exception's type; captured sections are dropped; string properties
  and reasons are replaced, and the test's warnings keep their category, not their message.
  A plain ``str`` (the prediction) has no repr of its own to redact, so this layer, not the
  first, is what holds.

Output a test writes straight to the terminal (``-s``, live logging) is not a report: it is
not covered.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import Any, Final

import pytest

from pytest_mteval.corpus import Entry
from pytest_mteval.corpus_model import SecretEntry
from pytest_mteval.plugin.collect import EntryItem
from pytest_mteval.plugin.failure_text import MtevalFailure
from pytest_mteval.run.redaction import WITHHELD, Secrecy
from pytest_mteval.run.run_state import RunState

MTEVAL_FIXTURES: Final = frozenset({"mteval_entry", "mteval_result", "mteval_method"})
HIDDEN: Final = "details hidden: scores-only run"


class WithheldRecord(dict[str, Any]):
    """An entry's record handed to a user's test on a secret run: a dict like any record,
    whose repr names the entry only."""

    def __repr__(self) -> str:
        return f"<record of entry {self.get('entry_id')!r}: text withheld (secret run)>"

    __str__ = __repr__


def fixture_entries(state: RunState | None) -> tuple[list[Entry], list[str]]:
    """The entries ``mteval_entry`` is parametrized with (on a secret run with a silent repr),
    and their ids; none without a run."""
    if state is None:
        return [], []
    entries = list(state.corpus.entries)
    if state.secrecy.withheld:
        entries = [SecretEntry.model_construct(e.model_fields_set, **dict(e)) for e in entries]
    return entries, state.names


def fixture_record(record: Mapping[str, Any], secrecy: Secrecy) -> Mapping[str, Any]:
    """The record ``mteval_result`` hands over (a copy on a secret run: tests may not change
    the run's own record either)."""
    return WithheldRecord(record) if secrecy.withheld else record


def uses_entries(item: pytest.Item) -> bool:
    """An entry item, or a test requesting one of our fixtures (directly or through another)."""
    return isinstance(item, EntryItem) or bool(
        MTEVAL_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def redact_report(
    item: pytest.Item,
    call: pytest.CallInfo[None],
    report: pytest.TestReport,
    secrecy: Secrecy,
    hidden: set[str],
) -> None:
    """On a secret run, rewrite ``report`` of an item using the entries (see the docstring);
    its node id joins ``hidden``, whose warnings are withheld too."""
    if not secrecy.withheld or not uses_entries(item):
        return
    hidden.add(item.nodeid)
    report.sections = []
    report.user_properties = [
        (name, value if _number(value) else WITHHELD) for name, value in report.user_properties
    ]
    if getattr(report, "wasxfail", None):
        report.wasxfail = HIDDEN
    longrepr = report.longrepr
    own = isinstance(item, EntryItem) and isinstance(longrepr, (str, MtevalFailure))
    if longrepr is None or own:
        return  # nothing to show, or an entry item's own rendering (already withheld)
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason), as the terminal folds them
        report.longrepr = (longrepr[0], longrepr[1], f"Skipped: {HIDDEN}")
        return
    kind = call.excinfo.typename if call.excinfo is not None else "failure"
    report.longrepr = f"{_where(item, call)}: {kind} ({HIDDEN})"


def redact_logged(report: pytest.TestReport, hidden: set[str]) -> None:
    """A hidden test's report as it is logged: a subtest's is made after the makereport
    wrapper ran, with the subtest's message, keywords and captured output added."""
    if report.nodeid not in hidden:
        return
    report.sections = []
    found = getattr(report, "context", None)  # a subtest's message and keyword values
    if not (dataclasses.is_dataclass(found) and hasattr(found, "msg")):
        return
    context: Any = found
    kwargs = dict.fromkeys(getattr(context, "kwargs", None) or {}, WITHHELD)
    msg = HIDDEN if context.msg else None
    report.context = dataclasses.replace(context, msg=msg, kwargs=kwargs)  # type: ignore[attr-defined]


def redact_warning(warning: warnings.WarningMessage, hidden: bool) -> None:
    """A warning a hidden test raised keeps its category and place, not its message."""
    if not hidden:
        return
    try:
        warning.message = warning.category(HIDDEN)
    except Exception:  # a category whose constructor wants other arguments
        warning.message = Warning(HIDDEN)


def _where(item: pytest.Item, call: pytest.CallInfo[None]) -> str:
    """``file:line`` of the test's own frame that failed (else of the test itself)."""
    path, line, _ = item.location
    lines = (
        [e.lineno for e in call.excinfo.traceback if e.path == item.path] if call.excinfo else []
    )
    line = lines[-1] if lines else line
    return f"{path}:{line + 1}" if line is not None else path


def _number(value: object) -> bool:
    return value is None or isinstance(value, bool | int | float)
