"""Whatever a method does, every entry ends scored or as an error, and the session goes on."""

from __future__ import annotations

import json

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import write_probe

pytest_plugins = ["pytester"]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "six.json"
    path.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    return path


def evaluate(pytester, corpus, mode, *extra):
    probe = write_probe(pytester.path)
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={probe}",
        f"--mteval-method-arg=mode={mode}",
        "--mteval-batch-size=3",
        f"--mteval-run-card={card}",
        *extra,
    )
    return result, json.loads(card.read_text(encoding="utf-8"))


def errors_by_id(card):
    return {row["entry_id"]: row["error"] for row in card["results"]}


def test_malformed_results_become_errors_on_their_entries(pytester, corpus):
    result, card = evaluate(pytester, corpus, "mangle")
    errors = errors_by_id(card)
    # batch 1 (ids 1-3) and batch 2 (ids 4-6) are mangled the same way
    for first, second, third in ((1, 2, 3), (4, 5, 6)):
        assert f"entry {first}: predicted must be a string, got int" in errors[str(first)]
        assert f"no result for entry id '{second}'" in errors[str(second)]
        assert f"2 results for entry id '{third}'" in errors[str(third)]
    assert any("not-in-batch" in w for w in card["warnings"])
    result.assert_outcomes(failed=6)
    assert card["scores"]["errors"] == 6


def test_exception_in_method_fails_its_batch_only_and_is_reported(pytester, corpus):
    result, card = evaluate(pytester, corpus, "raise")
    assert set(errors_by_id(card).values()) == {"method raised RuntimeError: backend exploded"}
    result.assert_outcomes(failed=6)
    result.stdout.fnmatch_lines(["*backend exploded*", "*translation failed for entry '1'*"])
    # one root cause over two batches: one report with the traceback, naming the others
    assert result.stdout.str().count("Traceback (most recent call last)") == 1
    assert result.stdout.str().count("the same error as entry") == 0
    result.stdout.fnmatch_lines(["the same error failed 5 more entries*"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_on_ci_the_short_summary_gives_each_failed_entry_one_line(
    pytester, corpus, monkeypatch, workers
):
    """pytest prints a plain-text report whole in the short summary on CI (the CI variable)
    and with -vv: a CI log must still show a method's traceback once per batch, not again
    below. With xdist the report crosses from the workers and keeps its summary line. One
    root cause is one report and one summary line with its count (issue 44)."""
    monkeypatch.setenv("CI", "1")
    result, _card = evaluate(pytester, corpus, "raise", "-vv", *workers)
    out = result.stdout.str()
    assert out.count("Traceback (most recent call last)") == 1
    summary = out[out.index("short test summary info") :].splitlines()[1:-1]
    assert len(summary) == 1, summary
    assert summary[0].endswith(
        "method raised RuntimeError: backend exploded (and 5 more entries with the same error)"
    )


def test_async_hang_times_out_as_errors(pytester, corpus):
    result, card = evaluate(pytester, corpus, "sleep", "--mteval-timeout=0.3")
    assert all("timeout" in e for e in errors_by_id(card).values())
    result.assert_outcomes(failed=6)


def test_method_blocking_the_event_loop_is_abandoned(pytester, corpus):
    _result, card = evaluate(pytester, corpus, "block", "--mteval-timeout=0.2")
    assert all("did not return within 0.2s" in e for e in errors_by_id(card).values())
    assert card["scores"]["total"] == 6


def test_errors_count_as_empty_translations_in_corpus_scores(pytester, corpus):
    _, card = evaluate(pytester, corpus, "raise")
    assert card["scores"]["chrf_plus_plus"] == 0.0
    assert card["scores"]["exact_match_rate"] == 0.0
