"""xdist scheduling that keeps each batch, and the user's tests of its entries, on one worker.

loadscope groups items by the node id left of the last '::'. That already keeps a batch's
entry items together; the user's own tests parametrized over entries (``test_x[entry-42]``)
are mapped to their entry's batch too, so a translation is made once, where it is used.
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

    def _batch_of_param(self, param: str) -> int | None:
        """The batch of ``entry-<id>``, also when other parameters follow it (``entry-7-x``)."""
        parts = param.split("-")
        for end in range(len(parts), 1, -1):
            batch = self._batch_of_name.get("-".join(parts[:end]))
            if batch is not None:
                return batch
        return None
