"""The evaluation's sections of pytest's terminal summary: dry-run estimate, card summary (and
whether ``-n`` paid), history or comparison, and the gate."""

from __future__ import annotations

from typing import Any

from pytest_mteval.cards.gate import gate_lines
from pytest_mteval.plugin.end_run import baseline_message
from pytest_mteval.plugin.gate_item import baseline_note
from pytest_mteval.plugin.session_end import Evaluation
from pytest_mteval.reports.terminal import summary_lines
from pytest_mteval.run.dry_run import estimate_lines
from pytest_mteval.terminal_text import printable


class _PrintableReporter:
    """pytest's terminal reporter, with every line's control characters escaped."""

    def __init__(self, reporter: Any) -> None:
        self._reporter = reporter

    def write_line(self, line: str, **markup: bool) -> None:
        self._reporter.write_line(printable(line, lines=False), **markup)

    def section(self, title: str, **markup: bool) -> None:
        self._reporter.section(printable(title, lines=False), **markup)


def write_summary(run: Evaluation, reporter: Any, xdist_advice: str | None = None) -> None:
    """The sections; card strings and predictions are shown, never obeyed by the terminal."""
    terminalreporter = _PrintableReporter(reporter)
    if run.estimate is not None:
        terminalreporter.section("mteval dry run")
        for line in estimate_lines(run.estimate):
            terminalreporter.write_line(line)
    if run.finish_failure is not None:
        terminalreporter.write_line(f"mteval: {run.finish_failure}", red=True)
    finished = run.finished
    if finished is None:
        return
    terminalreporter.section("mteval")
    settings = run.state.settings
    had = {"html": settings.html is not None, "update_baseline": settings.update_baseline}
    given = [name for name, on in had.items() if on]  # the next step does not repeat them
    for line in summary_lines(finished.card, finished.card_path, given):
        terminalreporter.write_line(line)
    if xdist_advice is not None:  # -n made the run slower (reports/parallel_advice.py)
        terminalreporter.write_line(f"xdist            {xdist_advice}", yellow=True)
    if run.history_lines:
        compared = bool(settings.compare)
        terminalreporter.section("mteval compare" if compared else "mteval history")
        for line in run.history_lines:
            terminalreporter.write_line(line)
    if finished.report_path is not None:
        terminalreporter.write_line(f"html report {finished.report_path}")
    for line in review_sample_lines(run):
        terminalreporter.write_line(line)
    if settings.no_gate and not run.gated():
        terminalreporter.write_line(
            "gate             off (--mteval-baseline=none: the ini's gate is not applied)"
        )
    if not run.gated() and finished.verdict.passed:
        return
    failed = not finished.verdict.passed
    terminalreporter.section("mteval gate", red=failed, green=not failed)
    load = run.state.baseline_load
    note = baseline_note(load, settings.update_baseline)
    changed = load is not None and load.dataset_change is not None
    if note and (run.state.baseline is None or changed):
        terminalreporter.write_line(note)  # the gate lines name a baseline already
    for line in gate_lines(finished.verdict):
        terminalreporter.write_line(line)
    if run.baseline_update is not None:
        terminalreporter.write_line(f"baseline {baseline_message(run.baseline_update)}")


def review_sample_lines(run: Evaluation) -> list[str]:
    """Where a secret run's sealed review sample went (names and key ids only, no text)."""
    finished, state = run.finished, run.state
    if finished is None or state.settings.review_sample_key is None:
        return []
    if not state.secrecy.withheld:
        return ["review sample    not sealed: the run is not secret (use mteval review sample)"]
    block = finished.card.get("review_sample")
    if finished.review_sample is None or not isinstance(block, dict):
        return ["review sample    NOT SEALED: see the card's flag review_sample_not_written"]
    key = str(block.get("sealed_to_key_sha256"))[:16]
    return [
        f"review sample    {block.get('entries')} entries sealed to steward key {key}…: "
        f"{finished.review_sample}"
    ]
