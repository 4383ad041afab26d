"""``--mteval-entry`` by id range and list, as the reference harness selects entries."""

from __future__ import annotations

import json

import pytest
from conftest import METHODS, envelope, flores_entries

from pytest_mteval.run.entry_ids import EntrySelectionError, selected_keys


def test_ranges_lists_and_exact_ids() -> None:
    keys = ["1", "2", "3", "10", "x-1", "4-5"]
    assert selected_keys(["1-3"], keys) == {"1", "2", "3"}
    assert selected_keys(["2-3,10"], keys) == {"2", "3", "10"}
    assert selected_keys(["1-2", "10"], keys) == {"1", "2", "10"}
    assert selected_keys(["4-5"], keys) == {"4-5"}  # an id with a dash is an id first
    assert selected_keys(["x-1"], keys) == {"x-1"}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["7-9"], "no entry with an id in the range '7-9'"),
        (["3-1"], "runs backwards"),
        (["nope"], "no entry with id 'nope'"),
        (["1-2,nope"], "no entry with id 'nope'"),
    ],
)
def test_a_selection_naming_nothing_is_refused(given: list[str], message: str) -> None:
    with pytest.raises(EntrySelectionError, match=message):
        selected_keys(given, ["1", "2", "3"])


def test_a_session_runs_exactly_the_range(pytester, tmp_path) -> None:
    entries = flores_entries(6)
    for number, entry in enumerate(entries):
        entry["id"] = number  # integer ids, as the reference harness's corpora have
    corpus = tmp_path / "ids.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    method = f"--mteval-method={METHODS / 'identity'}"
    result = pytester.runpytest(f"--mteval-corpus={corpus}", method, "--mteval-entry=1-3", "-v")
    result.assert_outcomes(passed=3)
    passed = sorted(line.split("::")[-1].split()[0] for line in result.outlines if "PASSED" in line)
    assert passed == ["entry-1", "entry-2", "entry-3"]
    listed = pytester.runpytest(f"--mteval-corpus={corpus}", method, "--mteval-entry=0,4-5")
    listed.assert_outcomes(passed=3)
    empty = pytester.runpytest(f"--mteval-corpus={corpus}", method, "--mteval-entry=8-9")
    assert empty.ret == pytest.ExitCode.USAGE_ERROR
    assert "no entry with an id in the range '8-9'" in empty.stderr.str()
