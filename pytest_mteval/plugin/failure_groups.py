"""Entries failed by one root cause are shown once, so the summary stays on the first screen.

A broken method fails every entry with the same error. pytest prints a report and a short
summary line per entry, burying the run's summary. Here, for the terminal only, entries whose
translation failed with the same error become one group: its first entry's full report lists
the others one line each; the short summary gets one untruncated line per group with its
count. The reports go back before pytest counts them, so ``12 failed`` stays true; JUnit XML,
``--lf`` and the card still see every entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_mteval.plugin.failure_text import failure_report

#: The domain of an entry item's report (``collect.EntryItem.reportinfo``).
ENTRY_DOMAIN = "mteval entry "


@dataclass
class FailureGroup:
    """The entries that failed with one error, the first one's report shown in full."""

    error: str
    reports: list[pytest.TestReport] = field(default_factory=list)


@dataclass
class FailureGroups:
    """The entry reports held back from pytest's terminal sections, and their groups."""

    groups: list[FailureGroup] = field(default_factory=list)
    held: list[pytest.TestReport] = field(default_factory=list)

    def hold(self, stats: dict[str, list[Any]], errors: Iterable[str]) -> None:
        """Take translation failures out of ``stats['failed']``; leave each group's first."""
        failed = stats.get("failed", [])
        known = set(errors)
        by_error: dict[str, FailureGroup] = {}
        for report in failed:
            error = _translation_error(report, known)
            if error is not None:
                by_error.setdefault(error, FailureGroup(error)).reports.append(report)
        self.groups = list(by_error.values())
        for group in self.groups:
            if len(group.reports) > 1:
                _list_the_others(group)
        self.held = [r for g in self.groups for r in g.reports]
        held_ids = {id(r) for r in self.held}
        firsts = {id(g.reports[0]) for g in self.groups}
        stats["failed"] = [r for r in failed if id(r) not in held_ids or id(r) in firsts]

    def hide_firsts(self, stats: dict[str, list[Any]]) -> None:
        """Out of pytest's short summary too, which would cut their reason to the width."""
        firsts = {id(g.reports[0]) for g in self.groups}
        stats["failed"] = [r for r in stats.get("failed", []) if id(r) not in firsts]

    def short_lines(self) -> list[tuple[str, str]]:
        """(node id, the reason in full) per group, the reason naming how many it failed."""
        lines = []
        for group in self.groups:
            count = len(group.reports)
            more = f" (and {_more(count - 1)} with the same error)" if count > 1 else ""
            lines.append((group.reports[0].nodeid, group.error + more))
        return lines

    def release(self, stats: dict[str, list[Any]]) -> None:
        """Every held report back, for the final counts."""
        failed = stats.setdefault("failed", [])
        shown = {id(r) for r in failed}
        failed.extend(r for r in self.held if id(r) not in shown)
        self.held = []


#: pytest's ``-r`` characters and the stats they list (its short test summary).
_REPORT_STATS = {"f": "failed", "E": "error", "s": "skipped", "x": "xfailed", "X": "xpassed"}


def pytest_wrote_summary(stats: dict[str, list[Any]], reportchars: str) -> bool:
    """Whether pytest's short test summary had lines (then it printed its title)."""
    listed = [_REPORT_STATS[char] for char in reportchars if char in _REPORT_STATS]
    if any(char in reportchars for char in "pP"):
        listed.append("passed")
    return any(stats.get(name) for name in listed)


def _translation_error(report: Any, errors: set[str]) -> str | None:
    """The error of an entry whose translation failed, from its report's first line."""
    if not isinstance(report, pytest.TestReport) or report.when != "call":
        return None
    if not str(report.location[2]).startswith(ENTRY_DOMAIN):
        return None
    crash = getattr(report.longrepr, "reprcrash", None)
    first = report.longrepr if isinstance(report.longrepr, str) else getattr(crash, "message", "")
    line = str(first).partition("\n")[0]
    return line if line in errors else None


def _list_the_others(group: FailureGroup) -> None:
    """The first report gains one line per further entry of its group, with their count."""
    first, others = group.reports[0], group.reports[1:]
    text = str(first.longrepr).rstrip("\n")
    lines = [
        "",
        f"the same error failed {_more(len(others))} (their rows are in the card; "
        "--lf reruns them):",
        *(f"  {report.nodeid}" for report in others),
    ]
    first.longrepr = failure_report("\n".join([text, *lines]), str(first.location[0]))


def _more(count: int) -> str:
    return "1 more entry" if count == 1 else f"{count} more entries"
