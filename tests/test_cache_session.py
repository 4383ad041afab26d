"""The translation cache in real sessions: a re-run does not pay for a translation twice."""

from __future__ import annotations

import json

from methods_for_tests import calls, write_probe

pytest_plugins = ["pytester"]


def run(pytester, corpus, probe, *args):
    card = pytester.path / f"card-{len(list(pytester.path.glob('card-*.json')))}.json"
    # the plain runner: the tests read the method's call log, private in the sandbox
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={probe}", f"--mteval-run-card={card}",
        "--mteval-sandbox=none", *args,
    )  # fmt: skip
    return result, json.loads(card.read_text(encoding="utf-8"))


def test_second_run_is_served_from_the_cache_with_original_latency(pytester, small_corpus):
    probe = write_probe(pytester.path)
    _, first = run(pytester, small_corpus, probe)
    assert len(calls(probe)) == 1
    _, second = run(pytester, small_corpus, probe)
    assert len(calls(probe)) == 1  # no new method call
    assert second["cache"]["cache_hits"] == 6
    assert first["cache"]["cache_hits"] == 0
    assert [r["predicted"] for r in second["results"]] == [r["predicted"] for r in first["results"]]
    assert [r["latency_s"] for r in second["results"]] == [r["latency_s"] for r in first["results"]]
    assert second["scores"]["chrf_plus_plus"] == first["scores"]["chrf_plus_plus"]


def test_no_cache_calls_the_method_again(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe)
    _, card = run(pytester, small_corpus, probe, "--mteval-no-cache")
    assert len(calls(probe)) == 2
    assert card["cache"]["cache_hits"] == 0


def test_a_different_configuration_is_a_different_cache_key(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-model=model-a")
    _, card = run(pytester, small_corpus, probe, "--mteval-model=model-b")
    assert len(calls(probe)) == 2
    assert card["cache"]["cache_hits"] == 0


def test_errors_are_not_cached(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-method-arg=mode=raise")
    run(pytester, small_corpus, probe, "--mteval-method-arg=mode=raise")
    assert len(calls(probe)) == 2
