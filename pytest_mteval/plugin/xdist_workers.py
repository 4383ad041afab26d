"""What an evaluation needs from pytest-xdist, without its hook names (``hooks.py`` routes them
here): the gateway socket handed to workers, the batch scheduler, and the controller's
accounting of what workers collected and which of them crashed. xdist's internals are
``xdist_internals.py``'s alone."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mteval.plugin.xdist_internals import BatchScheduling, hand_to_worker, worker_id
from pytest_mteval.run.entry_ledger import Ledger
from pytest_mteval.run.isolation import GATEWAY_SOCKET_KEY
from pytest_mteval.run.run_state import RunState


def hand_gateway_to(node: Any, state: RunState | None) -> None:
    """Workers' sandboxed runners use the controller's one LLM gateway."""
    socket = getattr(state.isolation, "gateway_socket", None) if state else None
    if socket:
        hand_to_worker(node, GATEWAY_SOCKET_KEY, socket)


def batch_scheduler(config: pytest.Config, log: Any, state: RunState) -> Any:
    """The scheduler keeping each batch on one worker; None leaves ``--dist each`` to xdist."""
    if config.getoption("dist") == "each":
        return None
    return BatchScheduling(config, log, state.batch_of_name)


class WorkerAccounting:
    """What the controller learns of workers: what each collected, and which crashed."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def collected(self, ids: list[str]) -> None:
        self.ledger.collect_ids(ids)

    def item_crashed(self, crashitem: str, report: Any) -> None:
        self.ledger.worker_crashed(worker_id(report), crashitem)

    def node_down(self, node: Any, error: object | None) -> None:
        if error is not None:
            self.ledger.worker_crashed(worker_id(node), None)
