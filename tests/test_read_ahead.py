"""--mteval-concurrency across batches: later batches start while the first is translated."""

from __future__ import annotations

from methods_for_tests import calls, write_probe

pytest_plugins = ["pytester"]


def most_at_once(log):
    """The largest number of method calls that were running at the same moment."""
    events = sorted([(c["start"], 1) for c in log] + [(c["end"], -1) for c in log])
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


def run(pytester, corpus, probe, *args):
    return pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={probe}",
        "--mteval-method-arg=mode=slow",
        "--mteval-batch-size=2",
        "--mteval-sandbox=none",  # the tests read the method's call log, private in the sandbox
        *args,
    )


def test_batches_overlap_up_to_the_concurrency(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-concurrency=4").assert_outcomes(passed=6)
    log = calls(probe)
    assert sorted(tuple(e["id"] for e in c["entries"]) for c in log) == [(1, 2), (3, 4), (5, 6)]
    assert most_at_once(log) == 2  # 4 entries in flight = two batches of two


def test_one_batch_at_a_time_when_the_concurrency_is_the_batch_size(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-concurrency=2").assert_outcomes(passed=6)
    assert most_at_once(calls(probe)) == 1


def test_deselected_batches_are_never_translated(pytester, small_corpus):
    probe = write_probe(pytester.path)
    run(pytester, small_corpus, probe, "--mteval-concurrency=6", "-k", "entry-1 or entry-5")
    assert sorted(tuple(e["id"] for e in c["entries"]) for c in calls(probe)) == [(1, 2), (5, 6)]


def test_xdist_workers_share_the_concurrency(pytester, small_corpus):
    probe = write_probe(pytester.path)
    result = run(pytester, small_corpus, probe, "--mteval-concurrency=8", "-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=6)
    assert {c["concurrency"] for c in calls(probe)} == {4}
