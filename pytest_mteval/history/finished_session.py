"""What a finished session does with the history: compare with a saved run (without gating),
record itself in the index, and prune old cards."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_mteval.cards.baseline import BaselineError, dataset_difference, read_run, run_texts
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.cards.compare import compare_runs, text_lines
from pytest_mteval.history.index import HistoryError, prune, record_run, resolve_run
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring.gate_options import GateOptions


def compare_lines(
    runs_dir: Path,
    ref: str,
    base: Path,
    card: RunCard,
    records: Sequence[EntryRecord],
) -> list[str]:
    """``--mteval-compare``: this run against a saved one, reported, never gating."""
    try:
        path = resolve_run(runs_dir, ref, base)
        saved = read_run(path)
    except (HistoryError, BaselineError) as exc:
        return [f"cannot compare: {exc}"]
    current = from_card(card, "this run", records)
    problem = dataset_difference(saved, current.dataset_sha256, run_texts(current))
    if problem is not None:
        return [f"not compared with {path}: {problem}"]
    try:
        comparison = compare_runs(saved, current, GateOptions(max_drop=None))
    except Exception as exc:  # a report ends in a message, never in a traceback
        return [f"cannot compare with {path}: {type(exc).__name__}: {exc}"]
    return [f"compared with {path} (not gated)", *text_lines(comparison, with_verdict=False)]


def record_and_prune(runs_dir: Path, card: RunCard, card_path: Path, keep: int | None) -> list[str]:
    """Index the written card; with ``keep``, delete the oldest cards beyond it."""
    try:
        record_run(runs_dir, card, card_path)
        removed = prune(runs_dir, keep) if keep is not None else []
    except OSError as exc:
        return [f"run history not updated: {exc}"]
    return [f"pruned {len(removed)} old run card(s) (mteval_keep_runs = {keep})"] if removed else []
