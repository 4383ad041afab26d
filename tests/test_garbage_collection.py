"""The collector is tuned while a run is active and put back afterwards: an in-process pytest
(``pytester``, an IDE runner) shares the interpreter with its caller, which must not inherit a
frozen heap or our thresholds."""

from __future__ import annotations

import gc
import json

import pytest
from conftest import METHODS

from pytest_mteval.plugin.garbage_collection import YOUNG_THRESHOLD, collection_paused
from pytest_mteval.run.forked_child import fork_child, reap

pytest_plugins = ["pytester"]

PROBE = """
import gc, json, pathlib

def test_probe(mteval_entry):
    pathlib.Path("gc.json").write_text(
        json.dumps(
            {
                "threshold": gc.get_threshold(),
                "frozen": gc.get_freeze_count(),
                "enabled": gc.isenabled(),
            }
        )
    )
"""


def test_run_tunes_the_collector_and_restores_it(pytester, small_corpus):
    before = (gc.get_threshold(), gc.get_freeze_count())
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_inprocess(
        f"--mteval-corpus={small_corpus}", f"--mteval-method={METHODS / 'identity'}", "-q"
    )
    result.assert_outcomes(passed=12)  # six entries, and the probe once per entry
    during = json.loads((pytester.path / "gc.json").read_text())
    assert during["threshold"][0] == max(YOUNG_THRESHOLD, before[0][0])
    assert during["threshold"][1:] == list(before[0][1:])
    assert during["frozen"] > 0 if before[1] == 0 else during["frozen"] == before[1]
    assert during["enabled"]  # paused while the run started only
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    assert gc.isenabled()


def test_without_a_run_the_collector_is_left_alone(pytester):
    before = (gc.get_threshold(), gc.get_freeze_count())
    pytester.makepyfile(
        test_plain="import gc\n\ndef test_one():\n    assert gc.get_freeze_count() == "
        f"{before[1]}\n    assert gc.get_threshold() == {before[0]!r}\n"
    )
    pytester.runpytest_inprocess("-q", "test_plain.py").assert_outcomes(passed=1)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_a_run_refused_while_it_starts_leaves_the_collector_running(pytester, small_corpus):
    result = pytester.runpytest_inprocess(
        f"--mteval-corpus={small_corpus}", "--mteval-method=no-such-method", "-q"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert gc.isenabled()


def test_collection_paused_puts_back_the_collector_as_it_was():
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()  # someone else's choice is kept
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("a start that fails")
    assert gc.isenabled()


def test_a_child_forked_while_a_run_starts_collects_its_own_garbage():
    with collection_paused():
        pid, pipe = fork_child(lambda p: p.send(gc.isenabled()))
    assert pipe.recv() is True
    reap(pid)


def test_the_frozen_heap_raises_no_false_alarm_from_hypothesis_about_trio(
    pytester, small_corpus, monkeypatch
):
    """With trio and hypothesis installed (selenium brings trio), hypothesis's terminal summary
    imports hypothesis, whose trio hook registers a random generator that trio's module holds.
    Under the run's freeze that module looks unreferenced to ``gc.get_referrers``, and
    hypothesis warned that the generator could be collected at once: "1 warning" on every
    run, though nothing was wrong. A real warning from elsewhere still shows."""
    pytest.importorskip("trio")
    pytest.importorskip("hypothesis")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:asyncio")  # hypothesis's plugin as installed
    pytester.makepyfile(
        test_other="import warnings\n\ndef test_warns():\n"
        "    warnings.warn('It looks like `register_random` was passed an object that could "
        "be garbage collected immediately')\n"
    )
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        "-p",
        "no:cacheprovider",
        "test_other.py",
    )
    output = result.stdout.str()
    assert "hypothesis-" in output  # its plugin is loaded
    assert "HypothesisWarning" not in output, output
    result.assert_outcomes(passed=7, warnings=1)  # six entries, and the other test's warning
