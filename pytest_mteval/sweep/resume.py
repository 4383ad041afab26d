"""Which earlier card of a combination can stand for a new run: a sweep resumes by reuse.

A card is reused only when it verifies (schema, hash, fingerprint), has the fingerprint the
new run would have (spec §3.8: same data, model, condition, prompt, temperature, harness,
batch size and tools), and is complete: one row per entry of the run's selection, none of them
lost or never run, and not marked incomplete or partial; and its run did not fail (the card
records no verdict, the sweep's index does): a failed run is run again, so that its gate is
judged anew and the sweep does not turn a failure into "reused".
"""

from __future__ import annotations

from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.fingerprint import card_fingerprint
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.run.entry_ledger import never_ran


def reusable_card(folder: Path, fingerprint: str | None, entries: int | None) -> Path | None:
    """The newest complete card in ``folder`` with this fingerprint, if any."""
    if fingerprint is None or entries is None or not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.json"), reverse=True):
        try:
            card = runcard.read(path)
        except runcard.RunCardError:
            continue
        if card_fingerprint(card) == fingerprint and is_complete(card, entries):
            return path
    return None


def is_complete(card: RunCard, entries: int) -> bool:
    """Every entry of the selection has a row that the run itself produced."""
    if card.complete is False or card.extra("partial") is True:
        return False
    rows = card.results
    if len(rows) != entries:
        return False
    return not any(never_ran(row.get("error")) for row in rows)


def failed_cards(index: Path) -> frozenset[str]:
    """The cards an earlier sweep's index (``sweep.json``) lists for runs that failed; none
    when there is no index or it cannot be read (then nothing is known to have failed)."""
    try:
        runs = read_json(index, "sweep index").get("runs")
    except (MtevalError, AttributeError):
        return frozenset()
    if not isinstance(runs, list):
        return frozenset()
    return frozenset(
        str(run["card"])
        for run in runs
        if isinstance(run, dict) and run.get("status") == "failed" and run.get("card")
    )
