"""A sweep reuses an earlier card only when the run itself produced every row: a row the
ledger wrote for an entry that never ran (a crashed worker, an interrupted session, an item
that never reported) makes the card incomplete; a method's own error does not."""

from __future__ import annotations

import pytest
from test_comparable_unit import _model

from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.run.entry_ledger import Ledger, stop_reason
from pytest_mteval.sweep.resume import is_complete


def _card(errors: list[str | None]) -> RunCard:
    return _model(
        complete=True, results=[{"entry_id": str(i), "error": e} for i, e in enumerate(errors)]
    )


def _ledger_reasons() -> list[str]:
    """The reasons the ledger itself gives, for each way an entry can go unrun."""
    crashed = Ledger({"entry-1": "1", "entry-2": "2"})
    crashed.collect_ids(["c.json::batch-0000::entry-1", "c.json::batch-0000::entry-2"])
    crashed.worker_crashed("gw1", "c.json::batch-0000::entry-1")
    stopped = Ledger({"entry-1": "1"})
    stopped.stop_reason = stop_reason(True)
    never = Ledger({"entry-1": "1"})
    return [
        crashed.reason_for("1"),
        crashed.reason_for("2"),
        stopped.reason_for("1"),
        never.reason_for("1"),
    ]


@pytest.mark.parametrize("reason", _ledger_reasons())
def test_a_row_the_ledger_wrote_makes_the_card_incomplete(reason):
    assert not is_complete(_card([None, reason]), 2)


@pytest.mark.parametrize("error", [None, "timeout: 300s", "method raised ValueError: lost: x"])
def test_a_methods_own_error_leaves_the_card_complete(error):
    assert is_complete(_card([None, error]), 2)
