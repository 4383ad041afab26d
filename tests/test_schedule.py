"""The xdist scheduler's bookkeeping (plugin/xdist_internals.py), driven the way xdist's controller
drives it: nodes register, collect, get work, report items done, and one crashes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from xdist_fakes import FakeNode

from pytest_mteval.plugin.xdist_internals import BatchScheduling

CORPUS = "corpus.json"
#: three batches of three entries, then a user's test over entry 4 (batch 1)
COLLECTION = [
    f"{CORPUS}::batch-{batch:04d}::entry-{batch * 3 + k}" for batch in range(3) for k in range(3)
] + ["test_rules.py::test_x[entry-4]"]
BATCH_OF_NAME = {f"entry-{i}": i // 3 for i in range(9)}


def scheduler(*nodes: FakeNode) -> BatchScheduling:
    config: Any = SimpleNamespace(
        getvalue=lambda name: [f"{len(nodes)}*popen"],
        option=SimpleNamespace(loadscopereorder=False),
    )
    sched = BatchScheduling(config, None, BATCH_OF_NAME)
    for node in nodes:
        sched.add_node(node)
        sched.add_node_collection(node, COLLECTION)
    sched.schedule()
    return sched


def given(node: FakeNode) -> list[str]:
    return [COLLECTION[i] for indexes in node.sent for i in indexes]


def test_each_batch_goes_whole_to_one_node_with_the_users_tests_of_its_entries() -> None:
    a, b = FakeNode("gw0"), FakeNode("gw1")
    sched = scheduler(a, b)
    done: set[tuple[str, int]] = set()
    while not sched.tests_finished:  # each node reports its items done, as xdist's would
        for node in (a, b):
            for index in [i for indexes in node.sent for i in indexes]:
                if (node.gateway.id, index) not in done:
                    done.add((node.gateway.id, index))
                    sched.mark_test_complete(node, index)
    batches = [given(a), given(b)]
    everything = sorted(nodeid for ids in batches for nodeid in ids)
    assert everything == sorted(COLLECTION)  # every item once, at the position it has
    with_user_test = next(ids for ids in batches if "test_rules.py::test_x[entry-4]" in ids)
    assert {f"{CORPUS}::batch-0001::entry-{i}" for i in (3, 4, 5)} <= set(with_user_test)


def test_a_finished_batch_leaves_the_workload_and_a_crash_requeues_only_what_was_left() -> None:
    a, b = FakeNode("gw0"), FakeNode("gw1")
    sched = scheduler(a, b)
    first = a.sent[0]
    scope = sched._split_scope(COLLECTION[first[0]])
    for index in first:
        sched.mark_test_complete(a, index)
    assert scope not in sched.assigned_work[a]
    pending = [i for indexes in a.sent[1:] for i in indexes]
    assert pending, "gw0 was given a second batch when the first was nearly done"
    sched.mark_test_complete(a, pending[0])  # one item of the second batch done, then a crash
    crashed = sched.remove_node(a)
    assert crashed == COLLECTION[pending[1]]
    requeued = [nodeid for unit in sched.workqueue.values() for nodeid, done in unit.items()]
    assert COLLECTION[first[0]] not in requeued  # the finished batch is not run again
    assert COLLECTION[pending[1]] in requeued


class DeadNode(FakeNode):
    """A worker that died before the controller read its node-down event: sending to it fails
    as execnet does ("cannot send (already closed?)")."""

    def send_runtest_some(self, indexes: list[int]) -> None:
        raise OSError("cannot send (already closed?)")


def test_work_sent_to_a_worker_that_just_died_is_requeued_when_its_death_arrives() -> None:
    """CI saw INTERNALERROR here: a replacement worker's collection rescheduled every node,
    one of them already dead (every batch crashing its worker, --max-worker-restart)."""
    dead, alive = DeadNode("gw0"), FakeNode("gw1")
    sched = scheduler(dead, alive)  # raised OSError out of schedule() before
    unsent = [nodeid for unit in sched.assigned_work[dead].values() for nodeid in unit]
    assert unsent  # still the dead node's, for remove_node to requeue
    sched.remove_node(dead)
    requeued = [nodeid for unit in sched.workqueue.values() for nodeid in unit]
    assert set(unsent) <= set(requeued)
