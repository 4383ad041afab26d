"""Every use of pytest-xdist beyond its hooks, in one place (docs/layers.md says which and why).

xdist has no public way to keep a batch on one worker (``--dist loadgroup`` silently stops
grouping with pytest 9.2 and xdist 3.8, xdist issue 1386), so ``BatchScheduling`` extends its
loadscope scheduler: it overrides loadscope's private ``_split_scope``, ``_reschedule`` and
``_assign_work_unit`` and its ``mark_test_complete``, and reads its ``registered_collections``,
``assigned_work`` and ``workqueue``. The rest is what xdist documents but does not type: a
worker's ``config.workerinput`` (which is how xdist's own ``is_xdist_worker`` tells a worker),
a node's ``workerinput`` that hands it data, the ``node`` xdist puts on a report, and why the
controller stopped (its ``dsession`` plugin's ``shouldstop``).
``tests/test_xdist_internals.py`` pins all of it against the installed xdist.

The scheduler's bookkeeping is kept proportionate to the run: loadscope finds each item's
position in a worker's collection by a linear search and counts a worker's pending items over
every batch it was ever given, which is quadratic over a 10 k-entry corpus (seconds of the
controller's time, the process every report goes through). Here positions are looked up in a
table and a batch leaves the worker's workload once all its items are done.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

from pytest_mteval.plugin.schedule import batch_scope

#: loadscope's methods that ``BatchScheduling`` overrides, with the parameters it relies on.
OVERRIDDEN: dict[str, tuple[str, ...]] = {
    "__init__": ("self", "config", "log"),
    "_split_scope": ("self", "nodeid"),
    "_reschedule": ("self", "node"),
    "_assign_work_unit": ("self", "node"),
    "mark_test_complete": ("self", "node", "item_index", "duration"),
}
#: loadscope's attributes that ``BatchScheduling`` reads or changes.
READ_ATTRIBUTES = ("registered_collections", "assigned_work", "workqueue")
#: What is used of xdist's ``WorkerController`` (a node): its method and its attribute.
NODE_PARTS = ("send_runtest_some", "workerinput")


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (the controller and a serial run are not)."""
    return hasattr(config, "workerinput")


def distributes(config: pytest.Config) -> bool:
    """Whether this process is the controller of an xdist run: its items run on workers (xdist's
    ``pytest_cmdline_main`` has set ``dist`` and the workers' ``tx`` before any configure)."""
    option = config.option
    return (
        not is_worker(config)
        and getattr(option, "dist", "no") != "no"
        and bool(getattr(option, "tx", None))
    )


def worker_count(config: pytest.Config) -> int:
    """How many workers the run has, seen from a worker; 1 on the controller or a serial run."""
    given = getattr(config, "workerinput", None)
    return int(given.get("workercount", 1)) if isinstance(given, dict) else 1


def handed_to_worker(config: pytest.Config, key: str) -> str | None:
    """What the controller handed this worker under ``key``; None elsewhere."""
    given = getattr(config, "workerinput", None)
    value = given.get(key) if isinstance(given, dict) else None
    return str(value) if value else None


def hand_to_worker(node: Any, key: str, value: str) -> None:
    """Hand ``value`` to the worker ``node`` is about to start (``pytest_configure_node``)."""
    node.workerinput[key] = value


def worker_id(node_or_report: Any) -> str:
    """The worker's id (``gw0``) of a worker node or of a report xdist made for one."""
    node = getattr(node_or_report, "node", node_or_report)
    gateway = getattr(node, "gateway", None)
    return str(getattr(gateway, "id", None) or getattr(node, "workerid", "?"))


def controller_stop(config: pytest.Config) -> object:
    """Why xdist's controller stopped the session early (``-x``, a signal), False if it did
    not; None without a controller (a serial run)."""
    return getattr(config.pluginmanager.get_plugin("dsession"), "shouldstop", None)


class BatchScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """LoadScopeScheduling whose scope of a test is its batch (``schedule.batch_scope``)."""

    def __init__(self, config: Any, log: Any, batch_of_name: Mapping[str, int]) -> None:
        super().__init__(config, log)
        self._batch_of_name = batch_of_name
        self._positions: dict[Any, dict[str, int]] = {}

    def _split_scope(self, nodeid: str) -> str:
        return batch_scope(nodeid, super()._split_scope(nodeid), self._batch_of_name)

    def _reschedule(self, node: Any) -> None:
        """Skip a worker whose collection has not arrived yet: a replacement for a crashed
        worker is in ``nodes`` before it has collected, and loadscope would look its
        collection up and end the session in ``INTERNALERROR> KeyError``. It gets work when
        its collection arrives (xdist schedules every node again then)."""
        if node not in self.registered_collections:
            return
        super()._reschedule(node)

    def _assign_work_unit(self, node: Any) -> None:
        """loadscope's assignment, with positions from a table instead of ``list.index``."""
        scope, work_unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        positions = self._positions_on(node)
        # A worker that died before the controller read its node-down event (a replacement's
        # collection reschedules every node) cannot be sent to: the unit stays in its workload,
        # which ``remove_node`` puts back in the queue when that event arrives.
        with contextlib.suppress(OSError):
            node.send_runtest_some(
                [positions[nodeid] for nodeid, done in work_unit.items() if not done]
            )

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        """Mark the item done; a batch whose items are all done leaves the node's workload
        (a crashed node's workload is then only what it had not finished)."""
        nodeid = self.registered_collections[node][item_index]
        workload = self.assigned_work[node]
        scope = self._split_scope(nodeid)
        work_unit = workload[scope]
        work_unit[nodeid] = True
        if all(work_unit.values()):
            del workload[scope]
        self._reschedule(node)

    def _positions_on(self, node: Any) -> dict[str, int]:
        """Node id -> its first position in the node's collection (what ``list.index`` gives)."""
        positions = self._positions.get(node)
        if positions is None:
            positions = {}
            for position, nodeid in enumerate(self.registered_collections[node]):
                positions.setdefault(nodeid, position)
            self._positions[node] = positions
        return positions
