"""The pytest-xdist internals that plugin/xdist_internals.py relies on, pinned against the
installed xdist: loadscope's methods it overrides keep their names and parameters and are still
what loadscope calls, the attributes it reads are there, and a worker is still told apart and
handed data the way it expects. On an xdist that changed, these fail saying what changed."""

from __future__ import annotations

import inspect
import json
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any

import xdist
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController
from xdist_fakes import FakeNode

from pytest_mteval.plugin.xdist_internals import (
    NODE_PARTS,
    OVERRIDDEN,
    READ_ATTRIBUTES,
    BatchScheduling,
)

pytest_plugins = ["pytester"]

CHANGED = (
    f"pytest-xdist {xdist.__version__} changed what plugin/xdist_internals.py relies on "
    "(docs/layers.md, 'xdist internals'): "
)


def changed_methods(scheduler: type, expected: dict[str, tuple[str, ...]]) -> list[str]:
    """What differs between ``scheduler``'s methods and the parameters we rely on."""
    changes = []
    for name, parameters in expected.items():
        method = scheduler.__dict__.get(name)
        if not callable(method):
            changes.append(f"{scheduler.__name__}.{name} is gone")
            continue
        found = tuple(inspect.signature(method).parameters)
        if found[: len(parameters)] != parameters or any(
            p.default is inspect.Parameter.empty
            for p in list(inspect.signature(method).parameters.values())[len(parameters) :]
        ):
            changes.append(f"{scheduler.__name__}.{name}{found} is not {name}{parameters}")
    return changes


def fake_config(workers: int) -> Any:
    return SimpleNamespace(
        getvalue=lambda name: [f"{workers}*popen"],
        option=SimpleNamespace(loadscopereorder=False),
    )


def test_loadscope_still_has_the_methods_we_override_with_their_parameters() -> None:
    assert changed_methods(LoadScopeScheduling, OVERRIDDEN) == [], CHANGED + "methods"


def test_the_check_names_a_method_that_was_renamed_or_given_a_new_parameter() -> None:
    class Changed:
        def __init__(self, config: Any, log: Any = None) -> None: ...
        def _split_scope(self, nodeid: str, depth: int) -> str: ...
        def _reschedule(self, node: Any) -> None: ...
        def _assign_work_unit(self, node: Any) -> None: ...

    assert changed_methods(Changed, OVERRIDDEN) == [
        "Changed._split_scope('self', 'nodeid', 'depth') is not _split_scope('self', 'nodeid')",
        "Changed.mark_test_complete is gone",
    ]


def test_batch_scheduling_overrides_nothing_of_loadscope_that_is_not_pinned() -> None:
    overridden = {
        name
        for name in BatchScheduling.__dict__
        if callable(BatchScheduling.__dict__[name]) and hasattr(LoadScopeScheduling, name)
    }
    assert overridden == set(OVERRIDDEN), "add what BatchScheduling overrides to OVERRIDDEN"


def test_loadscope_calls_our_overrides_and_keeps_the_attributes_we_read() -> None:
    collection = [f"c.json::batch-{b:04d}::entry-{b * 2 + k}" for b in range(6) for k in range(2)]
    batch_of_name = {f"entry-{i}": i // 2 for i in range(12)}
    first = FakeNode("gw0")
    sched = BatchScheduling(fake_config(2), None, batch_of_name)
    missing = [name for name in READ_ATTRIBUTES if not hasattr(sched, name)]
    assert missing == [], CHANGED + f"LoadScopeScheduling has no {missing}"
    assert isinstance(sched.workqueue, OrderedDict), CHANGED + "workqueue is not an OrderedDict"
    assert isinstance(sched.registered_collections, dict), CHANGED + "registered_collections"
    sched.add_node(first)
    sched.add_node_collection(first, collection)
    assert sched.registered_collections[first] == collection, CHANGED + "registered_collections"
    sched.add_node(FakeNode("gw1"))
    sched.add_node_collection(sched.nodes[1], collection)
    sched.schedule()
    # loadscope grouped by our _split_scope and assigned through our _assign_work_unit
    assigned = {scope for work in sched.assigned_work.values() for scope in work}
    queued = set(sched.workqueue)
    assert assigned | queued == {f"mteval-batch-{b:04d}" for b in range(6)}, CHANGED + "scopes"
    assert queued, "more batches than the nodes were given at first"
    assert set(sched._positions) == set(sched.nodes), CHANGED + "_assign_work_unit is not called"
    # a replacement node that has not collected yet is rescheduled through our _reschedule
    replacement = FakeNode("gw2")
    sched.add_node(replacement)
    sched.schedule()  # loadscope's own _reschedule would raise KeyError here
    assert replacement.sent == []
    assert not replacement.shutting_down  # it gets work once its collection arrives


def test_a_worker_node_still_takes_the_parts_we_use() -> None:
    missing = [name for name in NODE_PARTS if name not in inspect.getsource(WorkerController)]
    assert missing == [], CHANGED + f"WorkerController has no {missing}"
    parameters = tuple(inspect.signature(WorkerController.send_runtest_some).parameters)
    assert parameters == ("self", "indices"), CHANGED + f"send_runtest_some{parameters}"


PROBE_CONFTEST = """
import json
from pytest_mteval.plugin import xdist_internals as internals

seen = []

def pytest_configure_node(node):
    internals.hand_to_worker(node, "probe", "handed")

def pytest_runtest_logreport(report):
    if report.when == "call":
        seen.append(internals.worker_id(report))

def pytest_sessionfinish(session):
    config = session.config
    if not internals.is_worker(config):
        with open("controller.json", "w") as out:
            json.dump({"count": internals.worker_count(config), "seen": sorted(seen),
                       "handed": internals.handed_to_worker(config, "probe"),
                       "stopped": internals.controller_stop(config)}, out)
"""
PROBE_TEST = """
from pytest_mteval.plugin import xdist_internals as internals

def check(config):
    assert internals.is_worker(config)
    assert internals.worker_count(config) == 2
    assert internals.handed_to_worker(config, "probe") == "handed"
    assert internals.handed_to_worker(config, "absent") is None

def test_on_one_worker(request):
    check(request.config)

def test_on_another(request):
    check(request.config)
"""


def test_a_worker_is_told_apart_handed_data_and_named_as_xdist_does_it(pytester: Any) -> None:
    pytester.makeconftest(PROBE_CONFTEST)
    pytester.makepyfile(test_probe=PROBE_TEST)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    controller = json.loads((pytester.path / "controller.json").read_text(encoding="utf-8"))
    seen = controller.pop("seen")  # the reports' workers, as the controller saw them
    assert controller == {"count": 1, "handed": None, "stopped": False}
    assert len(seen) == 2
    assert set(seen) <= {"gw0", "gw1"}
