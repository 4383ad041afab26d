"""Which work unit of an xdist run a test belongs to: its batch, so that a batch and the user's
tests of its entries run on one worker and a translation is made once, where it is used.

A batch's entry items already share a scope under loadscope (the node id left of the last
'::' ends in ``::batch-NNNN``); a user's test parametrized over entries (``test_x[entry-42]``)
is mapped to its entry's batch. Plain data only: bending xdist's scheduler to use this is
``xdist_internals.py``'s business.
"""

from __future__ import annotations

from collections.abc import Mapping


def batch_scope(nodeid: str, loadscope_scope: str, batch_of_name: Mapping[str, int]) -> str:
    """The work unit of ``nodeid``: its batch's, else the scope loadscope gave it."""
    if nodeid.endswith("]") and "[entry-" in nodeid:
        batch = _batch_of_param(nodeid[nodeid.rindex("[") + 1 : -1], batch_of_name)
        if batch is not None:
            return f"mteval-batch-{batch:04d}"
    if "::batch-" in loadscope_scope:
        return "mteval-batch-" + loadscope_scope.rsplit("::batch-", 1)[1]
    return loadscope_scope


def _batch_of_param(param: str, batch_of_name: Mapping[str, int]) -> int | None:
    """The batch of ``entry-<id>``, also when other parameters follow it (``entry-7-x``)."""
    parts = param.split("-")
    for end in range(len(parts), 1, -1):
        batch = batch_of_name.get("-".join(parts[:end]))
        if batch is not None:
            return batch
    return None
