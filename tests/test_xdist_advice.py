"""The summary's line saying that ``-n`` made a run slower than a serial run would have been
(reports/parallel_advice.py, the rule in docs/large-runs.md): the estimate on figures recorded
from real runs, where a CPU-bound method's is the case that must not show the line, and a
session whose margin is wide: 47 identity entries, a fraction of a millisecond of work each,
against two workers' start (no timing is asserted). A serial run never shows it."""

from __future__ import annotations

import pytest
from conftest import CORPORA, METHODS, REPO

from pytest_mteval.reports.parallel_advice import (
    MARGIN,
    SERIAL_ITEM_COST_S,
    ParallelRun,
    advice_line,
)

pytest_plugins = ["pytester"]

SNA = CORPORA / "eng-sna-tatoeba-dev.json"
LINE = "xdist            -n slowed this run:"

# Figures recorded on the 2-core machine, as the plugin takes them (the controller's wall
# time, the items' durations): 47 identity entries under -n 2 (serially: 1.9 s); 1,012 and a
# 5 ms CPU burn per entry on 2,024 entries by benchmarks/parallel_rule.py at a load of 16-20,
# where serial runs took 11.4 s and 53.5 s. There even the burning method gained nothing from
# -n 2 (58.1 s), and the rule, leaning towards -n, stays silent: docs/large-runs.md.
IDENTITY_47 = ParallelRun(workers=2, wall_s=5.4, item_s=0.0884, items=47)
IDENTITY_1K = ParallelRun(workers=2, wall_s=36.80, item_s=22.48, items=1012)
BURN_2K = ParallelRun(workers=2, wall_s=58.13, item_s=64.00, items=2024)


def test_identity_under_two_workers_is_called_slower():
    assert IDENTITY_47.slower_than_serial
    line = advice_line(IDENTITY_47)
    assert line is not None
    assert line.startswith("-n slowed this run: 5.4 s with 2 workers, about 0.1 s serially")
    assert "(1.88 ms of work per item)" in line
    assert line.endswith("run it without -n (docs/large-runs.md)")


def test_a_thousand_identity_entries_under_two_workers_are_called_slower():
    assert IDENTITY_1K.slower_than_serial
    assert "36.8 s with 2 workers, about 23.0 s serially" in str(advice_line(IDENTITY_1K))


def test_a_cpu_bound_method_under_two_workers_is_not():
    assert not BURN_2K.slower_than_serial
    assert advice_line(BURN_2K) is None


def test_the_serial_estimate_is_the_work_plus_pytests_own_cost_per_item():
    run = ParallelRun(workers=2, wall_s=1.0, item_s=2.0, items=1000)
    assert run.serial_estimate_s == pytest.approx(2.0 + 1000 * SERIAL_ITEM_COST_S)


def test_a_near_tie_is_not_worth_a_line():
    run = ParallelRun(workers=2, wall_s=0.0, item_s=5.0, items=100)
    serial = run.serial_estimate_s
    tie = ParallelRun(2, MARGIN * serial * 0.999, 5.0, 100)
    slower = ParallelRun(2, MARGIN * serial * 1.001, 5.0, 100)
    assert not tie.slower_than_serial
    assert slower.slower_than_serial


@pytest.mark.parametrize(("workers", "items"), [(0, 100), (2, 0)])
def test_no_line_without_workers_or_items(workers, items):
    assert advice_line(ParallelRun(workers, wall_s=100.0, item_s=0.0, items=items)) is None


def _run(pytester, corpus, method, *args):
    card = pytester.path / "card.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}", f"--mteval-run-card={card}", *args
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    return result


def test_identity_with_two_workers_shows_the_line(pytester):
    """47 entries whose work is well under a millisecond each, against two workers' start."""
    result = _run(pytester, SNA, METHODS / "identity", "-n", "2")
    result.stdout.fnmatch_lines([f"{LINE} * s with 2 workers, about * s serially*"])


def test_a_serial_run_shows_no_line(pytester):
    result = _run(pytester, SNA, METHODS / "identity", "-p", "no:xdist")
    assert LINE not in result.stdout.str()


def test_the_ci_templates_run_without_n_and_say_when_to_add_it():
    """The templates' pytest lines use what pays for a cheap method; `-n auto` only in a
    comment, for a method that burns CPU or the semantic score."""
    for name in ("github-actions-mteval.yml", "gitlab-ci-mteval.yml"):
        text = (REPO / "conftest_templates" / name).read_text(encoding="utf-8")
        commands = [line for line in text.splitlines() if line.lstrip(" -").startswith("pytest")]
        assert len(commands) == 2, name
        assert all(" -n" not in line for line in commands), commands
        notes = [line for line in text.splitlines() if "-n auto" in line]
        assert notes, name
        assert all(line.lstrip().startswith("#") for line in notes), name
        assert "semantic score" in text
        assert "burns CPU" in text
