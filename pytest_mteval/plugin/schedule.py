"""xdist scheduling that keeps each batch, and the user's tests of its entries, on one worker.

loadscope groups items by the node id left of the last '::'. That already keeps a batch's
entry items together; the user's own tests parametrized over entries (``test_x[entry-42]``)
are mapped to their entry's batch too, so a translation is made once, where it is used.

The controller's bookkeeping is kept proportionate to the run: loadscope finds each item's
position in a worker's collection by a linear search and counts a worker's pending items over
every batch it was ever given, which is quadratic over a 10 k-entry corpus (seconds of the
controller's time, the process every report goes through). Here positions are looked up in a
table and a batch leaves the worker's workload once all its items are done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdist.scheduler import LoadScopeScheduling


class BatchScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """LoadScopeScheduling whose scope of an entry-parametrized test is its entry's batch."""

    def __init__(self, config: Any, log: Any, batch_of_name: Mapping[str, int]) -> None:
        super().__init__(config, log)
        self._batch_of_name = batch_of_name
        self._positions: dict[Any, dict[str, int]] = {}

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.endswith("]") and "[entry-" in nodeid:
            batch = self._batch_of_param(nodeid[nodeid.rindex("[") + 1 : -1])
            if batch is not None:
                return f"mteval-batch-{batch:04d}"
        scope: str = super()._split_scope(nodeid)
        if "::batch-" in scope:
            return "mteval-batch-" + scope.rsplit("::batch-", 1)[1]
        return scope

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

    def _batch_of_param(self, param: str) -> int | None:
        """The batch of ``entry-<id>``, also when other parameters follow it (``entry-7-x``)."""
        parts = param.split("-")
        for end in range(len(parts), 1, -1):
            batch = self._batch_of_name.get("-".join(parts[:end]))
            if batch is not None:
                return batch
        return None
