"""The gate, ``mteval::gate``, is a real pytest item run through pytest's own protocol
(plugin/gate_item.py): other plugins' runtest hooks see it like any item, its failure is an
exception pytest turned into the report, and the session fails with it."""

from __future__ import annotations

import json

import pytest
from conftest import CORPORA, DATA, METHODS

pytest_plugins = ["pytester"]

GPT55 = DATA / "upstream-runs" / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
SNA = CORPORA / "eng-sna-tatoeba-dev.json"

#: A user's plugin that records what pytest's protocol hands it for the gate.
WATCHING_CONFTEST = """
import json
import pytest

seen = {}

def pytest_runtest_setup(item):
    if item.nodeid == "mteval::gate":
        seen["item"] = [type(item).__name__, item.location[0], item.location[2]]

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if item.nodeid == "mteval::gate":
        raised = type(call.excinfo.value).__name__ if call.excinfo else None
        seen[call.when] = [raised, report.outcome]
    return report

def pytest_sessionfinish(session):
    with open("seen.json", "w") as out:
        json.dump(seen, out)
"""


@pytest.mark.parametrize(("floor", "outcome"), [(0.0, "passed"), (1.0, "failed")])
def test_the_gate_runs_through_pytests_protocol(pytester, floor, outcome):
    pytester.makeconftest(WATCHING_CONFTEST)
    result = pytester.runpytest(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={GPT55}",
        f"--mteval-fail-under={floor}",
        "-rf",
    )
    seen = json.loads((pytester.path / "seen.json").read_text(encoding="utf-8"))
    raised = "GateFailed" if outcome == "failed" else None
    assert seen == {
        "item": ["GateItem", "mteval", "mteval gate"],
        "setup": [None, "passed"],
        "call": [raised, outcome],
        "teardown": [None, "passed"],
    }
    if outcome == "failed":
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert any(line.startswith("FAILED mteval::gate - gate") for line in result.outlines)
    else:
        assert result.ret == pytest.ExitCode.OK
        result.assert_outcomes(passed=48)  # 47 entries and the gate
