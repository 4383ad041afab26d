"""pytest-xdist: -n 2 gives the run card of a serial run, each batch translated on one worker."""

from __future__ import annotations

import json
from collections import Counter

from conftest import CORPORA, DATA
from methods_for_tests import calls, write_probe

pytest_plugins = ["pytester"]

REPLAY = CORPORA.parent / "methods" / "replay"
SNA = CORPORA / "eng-sna-tatoeba-dev.json"
GPT55 = DATA / "upstream-runs" / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
#: Fields that measure the run itself (time, identity), not the translations.
RUN_ONLY = {"run_id", "timestamp", "elapsed_seconds", "run_card_hash", "fingerprint"}
SPEED = {"entries_per_minute", "tokens_per_second"}


def comparable(card):
    out = {k: v for k, v in card.items() if k not in RUN_ONLY}
    out["scores"] = {k: v for k, v in card["scores"].items() if k not in SPEED}
    return out


def run_card(pytester, name, *args):
    path = pytester.path / f"{name}.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={REPLAY}",
        f"--mteval-method-arg=predictions={GPT55}",
        "--mteval-batch-size=5",
        f"--mteval-run-card={path}",
        *args,
    )
    result.assert_outcomes(passed=47)
    return json.loads(path.read_text(encoding="utf-8"))


def test_two_workers_give_the_serial_run_card(pytester):
    serial = run_card(pytester, "serial", "-p", "no:xdist")
    parallel = run_card(pytester, "parallel", "-n", "2")
    assert comparable(parallel) == comparable(serial)
    assert serial["scores"]["chrf_plus_plus"] is not None


def test_each_batch_is_translated_once_on_one_worker(pytester, small_corpus):
    probe = write_probe(pytester.path)
    pytester.makepyfile(
        test_mt="def test_seen(mteval_result):\n    assert mteval_result['error'] is None\n"
    )
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={probe}",
        "--mteval-sandbox=none",  # the test reads the method's call log: private in the sandbox
        "--mteval-batch-size=2",
        "-n",
        "2",
    )
    result.assert_outcomes(passed=12)
    batches = [tuple(e["id"] for e in call["entries"]) for call in calls(probe)]
    assert sorted(batches) == [(1, 2), (3, 4), (5, 6)]  # once each, user tests included
    # two runner processes (each in its own PID namespace, so told apart by more than a pid)
    assert len(Counter(call["process"] for call in calls(probe))) == 2


def test_with_the_cache_off_each_batch_is_still_translated_once(pytester, small_corpus):
    """No cache to hide a second translation: every call of the method is logged, and each
    batch must appear exactly once, on the worker that ran all of that batch's items."""
    probe = write_probe(pytester.path)
    pytester.makepyfile(
        test_mt="import os\n\n"
        "def test_seen(mteval_result, mteval_entry):\n"
        "    with open('items.log', 'a') as log:\n"
        "        log.write(f'{os.getpid()} {mteval_entry.id}\\n')\n"
        "    assert mteval_result['error'] is None\n"
    )
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={probe}",
        "--mteval-sandbox=none",  # the test reads the method's call log: private in the sandbox
        "--mteval-batch-size=2",
        "--mteval-no-cache",
        # the probe logs the pid that translates: in process that is the xdist worker itself
        "--mteval-runner=inprocess",
        "-n",
        "2",
    )
    result.assert_outcomes(passed=12)
    assert not (pytester.path / ".mteval" / "cache").exists()
    made = Counter(tuple(e["id"] for e in call["entries"]) for call in calls(probe))
    assert made == {(1, 2): 1, (3, 4): 1, (5, 6): 1}
    worker_of = {tuple(e["id"] for e in c["entries"]): c["pid"] for c in calls(probe)}
    assert len(set(worker_of.values())) == 2  # both workers translated
    # the user's tests of an entry ran on the worker that translated its batch
    for line in (pytester.path / "items.log").read_text().splitlines():
        pid, entry = (int(x) for x in line.split())
        batch = next(ids for ids in worker_of if entry in ids)
        assert worker_of[batch] == pid, (entry, batch)
