"""Broken methods, odd results and interrupted runs: a clear message, and nothing computed lost."""

from __future__ import annotations

import json

import pytest
from conftest import CORPORA, METHODS
from methods_for_tests import MANIFEST, calls, write_probe

from pytest_mteval.methods.manifest import ManifestError, derive_dependency_class, load_manifest

pytest_plugins = ["pytester"]


def card_of(pytester, name="card.json"):
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


def run(pytester, corpus, method, *args, card="card.json"):
    return pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-run-card={pytester.path / card}",
        "--mteval-batch-size=3",
        "--mteval-sandbox=none",  # some tests read the method's call log, private in the sandbox
        *args,
    )


def assert_usage_error(result, *fragments):
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    for fragment in fragments:
        assert fragment in output
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output


def test_a_method_whose_setup_fails_stops_the_run_with_one_message(pytester):
    """coached-llm ships coaching for Plains Cree only."""
    result = run(pytester, CORPORA / "eng-sna-tatoeba-dev.json", METHODS / "coached-llm")
    assert_usage_error(result, "method 'coached-llm' cannot start")


def test_a_method_whose_constructor_fails_stops_the_run(pytester, small_corpus):
    folder = write_probe(
        pytester.path,
        "class Probe:\n"
        "    def __init__(self):\n"
        "        raise RuntimeError('needs a GPU')\n"
        "    async def translate(self, entries, config):\n"
        "        return []\n",
    )
    assert_usage_error(run(pytester, small_corpus, folder), "needs a GPU")


def test_an_unreadable_price_file_is_named_at_start(pytester, small_corpus):
    missing = pytester.path / "nope.json"
    result = run(pytester, small_corpus, METHODS / "identity", f"--mteval-prices={missing}")
    assert_usage_error(result, "--mteval-prices", str(missing))


def test_results_that_are_not_plain_json_become_entry_errors(pytester, small_corpus):
    probe = write_probe(pytester.path)
    result = run(pytester, small_corpus, probe, "--mteval-method-arg=mode=not-json")
    card = card_of(pytester)
    errors = {row["entry_id"]: row["error"] for row in card["results"]}
    assert "not plain JSON" in errors["1"]
    assert "not plain JSON" in errors["4"]
    # a NaN latency is a wrong value like any other (issue 9): the entry's error names it
    assert errors["2"] == "entry 2: latency_s must be a finite number, got float"
    result.assert_outcomes(passed=2, failed=4)


def test_a_timeout_raised_by_the_method_keeps_its_message(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-method-arg=mode=upstream-timeout")
    errors = {row["error"] for row in card_of(pytester)["results"]}
    assert errors == {"method raised TimeoutError: upstream connect timed out after 5s"}


def test_a_failing_metric_keeps_the_translation_and_translates_once(pytester, small_corpus):
    pytester.makeconftest(
        """
import pytest_mteval.metrics.hallucination as hallucination

def pytest_configure(config):
    original = hallucination.Hallucination.score_entry
    def flaky(self, entry, predicted):
        if entry.key == "2":
            raise ValueError("cannot judge this one")
        return original(self, entry, predicted)
    hallucination.Hallucination.score_entry = flaky
    # an in-process inner run shares the module with the outer test process: put it back
    config.add_cleanup(lambda: setattr(hallucination.Hallucination, "score_entry", original))
"""
    )
    probe = write_probe(pytester.path)
    result = run(pytester, small_corpus, probe, "--mteval-no-cache")
    result.assert_outcomes(passed=6)
    assert len(calls(probe)) == 2  # two batches of three, each translated once
    rows = {row["entry_id"]: row for row in card_of(pytester)["results"]}
    assert rows["2"]["metric_errors"] == {"hallucination": "ValueError: cannot judge this one"}
    assert rows["2"]["chrf_score"] is not None


@pytest.mark.parametrize("workers", [[], ["-n", "2", "-p", "xdist"]])
def test_batch_warnings_reach_the_card_serial_or_parallel(pytester, small_corpus, workers):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-method-arg=mode=ghost", *workers)
    warnings = card_of(pytester)["warnings"]
    assert len(warnings) == 2  # one per batch
    assert all("ghost" in w for w in warnings)


def test_a_longer_request_timeout_keeps_the_cache(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-request-timeout=30", card="a.json")
    run(pytester, small_corpus, probe, "--mteval-request-timeout=60", card="b.json")
    assert len(calls(probe)) == 2  # the first run's two batches only
    assert card_of(pytester, "b.json")["cache"]["cache_hits"] == 6


def test_batches_started_ahead_are_kept_when_the_run_stops_early(pytester, small_corpus):
    probe = write_probe(pytester.path)
    ahead = ("--mteval-method-arg=mode=slow", "--mteval-concurrency=6", "--mteval-batch-size=2")
    # every entry falls under the floor, so -x stops after the first item, while batches 2
    # and 3 are being translated ahead
    stopped = run(pytester, small_corpus, probe, *ahead, "--mteval-entry-min-chrf=99", "-x")
    stopped.assert_outcomes(failed=1)
    assert len(calls(probe)) == 3
    again = run(pytester, small_corpus, probe, *ahead, card="again.json")
    again.assert_outcomes(passed=6)
    assert len(calls(probe)) == 3  # all three batches came from the cache
    assert card_of(pytester, "again.json")["cache"]["cache_hits"] == 6


def test_the_next_batch_translates_while_one_is_scored(pytester, small_corpus):
    """With room for one batch in flight (concurrency 3, batches of 3), the second batch is
    requested as soon as the first one's translations arrive: -x after the first item finds
    it started, and it is kept."""
    probe = write_probe(pytester.path)
    one = ("--mteval-method-arg=mode=slow", "--mteval-concurrency=3")
    stopped = run(pytester, small_corpus, probe, *one, "--mteval-entry-min-chrf=99", "-x")
    stopped.assert_outcomes(failed=1)
    assert len(calls(probe)) == 2
    again = run(pytester, small_corpus, probe, *one, card="again.json")
    again.assert_outcomes(passed=6)
    assert len(calls(probe)) == 2
    assert card_of(pytester, "again.json")["cache"]["cache_hits"] == 6


def test_ini_paths_are_relative_to_the_ini_file(pytester, small_corpus):
    (pytester.path / "corpora").mkdir()
    (pytester.path / "corpora" / "c.json").write_bytes(small_corpus.read_bytes())
    pytester.makeini(
        "[pytest]\nmteval_corpus = corpora/c.json\n"
        f"mteval_method = {METHODS / 'identity'}\nmteval_run_card = out/card.json\n"
    )
    sub = pytester.mkdir("sub")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sub)
        result = pytester.runpytest()
    result.assert_outcomes(passed=6)
    assert (pytester.path / "out" / "card.json").exists()


def test_probe_manifest_is_valid(tmp_path):
    """The probe every robustness test runs passes the real manifest validation: its declared
    dependency class is re-derived from its dependencies, and it claims every language pair."""
    manifest = load_manifest(write_probe(tmp_path) / "method.json")
    assert manifest.dependency_class == derive_dependency_class(manifest.dependencies)
    assert manifest.supports("en", "fr")
    assert manifest.supports("crk", "se")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**MANIFEST, "dependency_class": "X"}), encoding="utf-8")
    with pytest.raises(ManifestError, match="dependency_class"):
        load_manifest(broken)
