"""The collector is tuned while a run is active and put back afterwards: an in-process pytest
(``pytester``, an IDE runner) shares the interpreter with its caller, which must not inherit a
frozen heap or our thresholds."""

from __future__ import annotations

import gc
import json

from conftest import METHODS

from pytest_mteval.plugin.garbage_collection import YOUNG_THRESHOLD

pytest_plugins = ["pytester"]

PROBE = """
import gc, json, pathlib

def test_probe(mteval_entry):
    pathlib.Path("gc.json").write_text(
        json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()})
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
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_without_a_run_the_collector_is_left_alone(pytester):
    before = (gc.get_threshold(), gc.get_freeze_count())
    pytester.makepyfile(
        test_plain="import gc\n\ndef test_one():\n    assert gc.get_freeze_count() == "
        f"{before[1]}\n    assert gc.get_threshold() == {before[0]!r}\n"
    )
    pytester.runpytest_inprocess("-q", "test_plain.py").assert_outcomes(passed=1)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
