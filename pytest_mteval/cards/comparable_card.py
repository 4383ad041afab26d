"""Our run card as a :class:`~pytest_mteval.scoring.comparable_run.Comparable`: the form the
gate, ``mteval compare``, the history and a sweep's matrix compare two runs in. A reference
harness's files become one in ``scoring/comparable_run.py`` and ``foreign_card.py``."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mteval.cards.card_model import RunCard, score
from pytest_mteval.cards.coverage import is_partial
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.entry_record import EntryRecord, as_records
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.comparable_run import Comparable, recorded_profile


def from_card(card: RunCard, path: str, records: Sequence[EntryRecord] = ()) -> Comparable:
    """Our run card (verified, or being built: ``cards/runcard.py``) as a Comparable.

    ``records``: the per-entry records a card was just built from. They are its rows, with
    the sufficient statistics the workers computed (a card's rows do not carry them), so the
    card's results are not read back and no statistic is recomputed.
    """
    profile = card_profile(card)
    metrics = {name: _number(score(card.scores, name)) for name in catalog.names()}
    recorded = _number(card.scores.composite)
    # The run's own records as they are, not copies: nothing here writes to a row, and a copy
    # of each would be a second set of 100,000 dicts at the peak of a large run's end (while
    # the card's rows exist too). A card's rows are still read through ``as_records``.
    rows = {str(r["entry_id"]): r for r in (records or as_records(card.results))}
    return Comparable(
        path=path,
        origin="run card",
        label=card.model_slug or "?",
        dataset_sha256=card.dataset.sha256,
        profile=profile,
        metrics=metrics,
        composite=recorded if recorded is not None else scoring.composite(metrics, profile),
        rows=rows,
        run_card_hash=card.run_card_hash or None,
        partial=is_partial(card),
        hallucinated=frozenset(
            str(i) for i in (card.hallucination or {}).get("hallucination_entries") or ()
        ),
    )


def card_profile(card: RunCard) -> str:
    """The card's scoring profile as recorded, else A when it measured FST acceptance."""
    recorded = card.scores.scoring_profile or (card.extra("scoring") or {}).get("profile")
    return recorded_profile(recorded, card.scores.fst_acceptance_rate is not None)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
