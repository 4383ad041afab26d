"""A serial run's records made in a forked scorer process, one batch ahead of pytest: the same
records as in the run's process, in the child's process, and nothing lost when it dies."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPORA, METHODS, KeptRecords

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodResult, RunConfig
from pytest_mteval.metrics.code_switching import CodeSwitching, CorpusWords
from pytest_mteval.metrics.entry_record import EntryRecord, record_stats
from pytest_mteval.metrics.hallucination import CorpusFacts
from pytest_mteval.run import scorer_process
from pytest_mteval.run.batch_scoring import BatchScoring
from pytest_mteval.run.batches import BatchTranslator
from pytest_mteval.run.scorer_process import ScorerProcess

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the scorer process forks")


class Copying:
    """A method that copies the source, and remembers which batches it was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def translate(self, entries: list[Any], config: RunConfig) -> list[MethodResult]:
        self.asked.append(entries[0]["id"])
        return [{"id": e["id"], "predicted": e["source"], "latency_s": 0.0} for e in entries]


def entries(batches: int) -> list[list[Entry]]:
    return [
        [Entry(id=f"{b}-{i}", source=f"source {b} {i}", reference="r") for i in range(2)]
        for b in range(batches)
    ]


class Scoring(BatchScoring):
    """BatchScoring as a RunState uses it: a batch is done once its records came back."""

    def batch(self, batch: int) -> tuple[Any, list[str], list[EntryRecord]]:
        got = super().batch(batch)
        self.finished.add(batch)
        return got


def scoring(batches: int, score_here_only: bool = False) -> tuple[Scoring, Copying]:
    method = Copying()
    config = RunConfig(batch_size=2, concurrency=2)  # one batch in flight
    translator = BatchTranslator(entries(batches), lambda: method, config)
    translator.plan(range(batches))
    parent = os.getpid()

    def score(batch: int, results: dict[str, MethodResult]) -> list[EntryRecord]:
        if score_here_only and os.getpid() != parent:
            raise RuntimeError("refused in the child")
        return [
            {"entry_id": key, "predicted": r["predicted"], "pid": os.getpid()}  # type: ignore[typeddict-unknown-key]
            for key, r in results.items()
        ]

    batched = Scoring(translator, score, lambda b: b in batched.finished, beside=True)
    batched.finished = set()
    return batched, method


def test_records_are_made_in_the_child_one_batch_ahead():
    batched, method = scoring(5)
    try:
        _, _, records = batched.batch(0)
        # batch 1 was translated, and handed to the child, before batch 0's items report
        assert method.asked[:2] == ["0-0", "1-0"]
        assert [r["entry_id"] for r in records] == ["0-0", "0-1"]
        assert {r["pid"] for r in records} == {batched._scorer.pid} != {os.getpid()}
        for batch in range(1, 5):
            _, _, records = batched.batch(batch)
            assert [r["predicted"] for r in records] == [f"source {batch} 0", f"source {batch} 1"]
            assert records[0]["pid"] != os.getpid()
    finally:
        batched.close()
    assert method.asked == [f"{b}-0" for b in range(5)]  # each batch translated once


def test_a_killed_child_leaves_every_batch_scored_here():
    batched, method = scoring(5)
    try:
        batched.batch(0)
        os.kill(batched._scorer.pid, signal.SIGKILL)  # batch 1 is in it, scored or not
        for batch in range(1, 5):
            _, _, records = batched.batch(batch)
            assert [r["entry_id"] for r in records] == [f"{batch}-0", f"{batch}-1"]
            if batch > 1:
                assert records[0]["pid"] == os.getpid()
    finally:
        batched.close()
    assert method.asked == [f"{b}-0" for b in range(5)]  # nothing translated twice


def test_a_batch_the_child_cannot_score_is_scored_here():
    batched, _ = scoring(4, score_here_only=True)
    try:
        for batch in range(4):
            _, _, records = batched.batch(batch)
            assert [r["entry_id"] for r in records] == [f"{batch}-0", f"{batch}-1"]
            assert records[0]["pid"] == os.getpid()
    finally:
        batched.close()


def test_the_child_prepares_the_metrics_before_its_first_batch(tmp_path: Path):
    marks = tmp_path / "prepared"

    def prepare() -> None:
        marks.write_text(str(os.getpid()), encoding="utf-8")

    batched, _ = scoring(4)
    try:
        batched.start(prepare)
        child = batched._scorer.pid
        _, _, records = batched.batch(0)  # answered after the child prepared
        assert marks.read_text(encoding="utf-8") == str(child) != str(os.getpid())
        assert records[0]["pid"] == child  # the prepared child scores: no second fork
    finally:
        batched.close()


def test_a_child_whose_preparation_fails_still_scores():
    def prepare() -> None:
        raise OSError("no word lists here")

    batched, _ = scoring(4)
    try:
        batched.start(prepare)
        for batch in range(4):
            _, _, records = batched.batch(batch)
            assert records[0]["pid"] == batched._scorer.pid != os.getpid()
    finally:
        batched.close()


def test_batches_asked_out_of_order():
    batched, method = scoring(5)
    try:
        for batch in [3, 0, 1, 4, 2]:
            _, _, records = batched.batch(batch)
            assert [r["entry_id"] for r in records] == [f"{batch}-0", f"{batch}-1"]
    finally:
        batched.close()
    assert sorted(method.asked) == [f"{b}-0" for b in range(5)]  # each batch translated once


def test_where_the_scorer_is_used():
    class Batch:
        def score_batch(self) -> None: ...

    assert ScorerProcess.wanted(4, worker=False, runner_process=True, builtin=[object()])
    assert not ScorerProcess.wanted(3, worker=False, runner_process=True, builtin=[])
    assert not ScorerProcess.wanted(40, worker=True, runner_process=True, builtin=[])
    assert not ScorerProcess.wanted(40, worker=False, runner_process=False, builtin=[])
    assert not ScorerProcess.wanted(40, worker=False, runner_process=True, builtin=[Batch()])
    assert not ScorerProcess.wanted(
        40, worker=False, runner_process=True, builtin=[], plugins=[object()]
    )


def card_without_timings(path: Path) -> dict[str, Any]:
    card = json.loads(path.read_text(encoding="utf-8"))
    for key in ("run_id", "timestamp", "elapsed_seconds", "run_card_hash", "fingerprint"):
        card.pop(key, None)
    for row in card["results"]:
        row.pop("latency_s", None)
    card.pop("speed", None)
    card["scores"] = {k: v for k, v in card["scores"].items() if "per_minute" not in k}
    return card


def test_a_run_scored_beside_pytest_writes_the_card_of_a_run_scored_in_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    forks: list[int] = []
    real_init = ScorerProcess.__init__

    def counted(self: ScorerProcess, *args: Any) -> None:
        real_init(self, *args)
        forks.append(self.pid)

    monkeypatch.setattr(ScorerProcess, "__init__", counted)
    kept = KeptRecords()
    corpus = CORPORA / "eng-sme-tatoeba-dev.json"
    args = [
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=5",
        "--mteval-sandbox=none",
        "-p",
        "no:cacheprovider",
    ]
    beside = pytester.runpytest(
        *args, f"--mteval-run-card={pytester.path / 'beside.json'}", plugins=[kept]
    )
    assert beside.ret == 0
    assert len(forks) == 1
    # the records that came from the child hold the corpus's own strings and the run's shared
    # floats, as records made in the run's process do (not copies of their own per entry)
    assert kept.records
    assert all(
        record["source"] is entry.source and record["expected"] is entry.reference
        for record, entry in kept.records
    )
    stats = [record_stats(r) or {} for r, _ in kept.records]
    floats = {id(x) for families in stats for row in families.values() for x in row}
    assert len(floats) < 500
    monkeypatch.setattr(scorer_process, "MIN_BATCHES", 10**9)
    here = pytester.runpytest(*args, f"--mteval-run-card={pytester.path / 'here.json'}")
    assert here.ret == 0
    assert len(forks) == 1
    assert card_without_timings(pytester.path / "beside.json") == card_without_timings(
        pytester.path / "here.json"
    )


class Collected:
    def __init__(self) -> None:
        self.done = False

    def pytest_collection_finish(self) -> None:
        self.done = True


def test_a_run_forks_its_scorer_before_collecting_and_it_prepares_the_metrics(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    prepared = tmp_path / "prepared"

    def prepare(self: CodeSwitching) -> None:
        prepared.write_text(str(os.getpid()), encoding="utf-8")

    collected = Collected()
    forks: list[tuple[int, bool]] = []
    real_init = ScorerProcess.__init__

    def counted(self: ScorerProcess, *args: Any) -> None:
        real_init(self, *args)
        forks.append((self.pid, collected.done))

    monkeypatch.setattr(ScorerProcess, "__init__", counted)
    monkeypatch.setattr(CodeSwitching, "prepare", prepare)
    args = [
        f"--mteval-corpus={CORPORA / 'eng-sme-tatoeba-dev.json'}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=5",
        "--mteval-sandbox=none",
        "-p",
        "no:cacheprovider",
    ]
    listed = pytester.runpytest(*args, "--collect-only", plugins=[collected])
    assert listed.ret == 0
    assert forks == []  # nothing will be scored: no child
    collected.done = False
    ran = pytester.runpytest(*args, plugins=[collected])
    assert ran.ret == 0
    assert forks == [(forks[0][0], False)]  # forked while the run started, before collecting
    assert prepared.read_text(encoding="utf-8") == str(forks[0][0])  # in the child
    shared = pytester.runpytest(*args, "-n", "2")
    assert shared.ret == 0
    assert len(forks) == 1  # an xdist controller scores nothing: no child of its own


def test_the_metrics_learn_the_corpus_where_entries_are_scored_outside_their_scoring_time(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """The hallucination and code-switching checks read the whole corpus before their first
    entry: in the process that scores (the scorer process while pytest collects, else the
    run's own before its first batch), never in one that only aggregates, and never on an
    entry's clock."""
    learnt = tmp_path / "learnt"

    def slowly(learn: Any) -> Any:
        real_of = learn.of.__func__

        def slow_of(cls: type, corpus: Any) -> Any:
            with learnt.open("a", encoding="utf-8") as out:
                out.write(f"{os.getpid()}\n")
            time.sleep(0.5)  # longer than an entry may take below
            return real_of(cls, corpus)

        return classmethod(slow_of)

    forks: list[int] = []
    real_init = ScorerProcess.__init__

    def counted(self: ScorerProcess, *args: Any) -> None:
        real_init(self, *args)
        forks.append(self.pid)

    monkeypatch.setattr(CorpusFacts, "of", slowly(CorpusFacts))
    monkeypatch.setattr(CorpusWords, "of", slowly(CorpusWords))
    monkeypatch.setattr(ScorerProcess, "__init__", counted)
    card = pytester.path / "card.json"
    args = [
        f"--mteval-corpus={CORPORA / 'eng-sme-tatoeba-dev.json'}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=5",
        "--mteval-sandbox=none",
        "--mteval-score-timeout=0.3",
        f"--mteval-run-card={card}",
        "-p",
        "no:cacheprovider",
    ]

    def learners() -> list[int]:
        found = learnt.read_text(encoding="utf-8").split() if learnt.exists() else []
        learnt.unlink(missing_ok=True)
        return [int(pid) for pid in found]

    def errors() -> list[Any]:
        rows = json.loads(card.read_text(encoding="utf-8"))["results"]
        return [row["error"] for row in rows if row["error"]]

    assert pytester.runpytest(*args, "--collect-only").ret == 0
    assert learners() == []
    assert pytester.runpytest(*args).ret == 0
    assert learners() == [*forks, *forks] == [forks[0]] * 2  # once each, in the scorer process
    assert errors() == []
    monkeypatch.setattr(scorer_process, "MIN_BATCHES", 10**9)
    assert pytester.runpytest(*args).ret == 0
    assert learners() == [os.getpid()] * 2  # scored here: learnt here, before the first batch
    assert errors() == []
    assert pytester.runpytest(*args, "-n", "2").ret == 0
    assert os.getpid() not in learners()  # the controller only aggregates
