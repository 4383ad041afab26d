"""Several runs of one corpus on one page: every entry's source, reference and each run's
output with its per-entry scores, and each run's summary at the top (``mteval compare A B C
--html PAGE``).

Only what the cards hold is shown: a secret corpus's card carries no source or reference, and
the page shows none. Predictions are hostile text: the template escapes them, nothing here
marks them safe. The entries where the runs disagree most are those with the widest spread
of sentence chrF++ (an errored entry counts as 0, as in ``mteval compare``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.entry_record import ResultRow
from pytest_mteval.reports.page import render

#: Entries shown when the page opens with the disagreement filter on.
DEFAULT_TOP_SPREAD: Final = 10
#: Per-entry numbers a card's result rows carry: key, label, digits.
ENTRY_NUMBERS: Final = (
    ("chrf_score", "chrF++", 2),
    ("bleu_score", "BLEU", 2),
    ("ter_score", "TER", 2),
    ("length_ratio", "len ratio", 2),
)
#: Per-entry yes/no findings a card's result rows may carry: key, label.
ENTRY_FLAGS: Final = (
    ("exact_match", "exact match"),
    ("equivalent_match", "equivalent"),
    ("fst_valid", "FST valid"),
    ("code_switching_detected", "code-switching"),
    ("hallucination_detected", "hallucination"),
)
#: Run-level numbers of each card's summary: score key, label, digits.
RUN_NUMBERS: Final = (
    ("composite", "composite", 4),
    ("chrf_plus_plus", "chrF++", 2),
    ("bleu", "BLEU", 2),
    ("ter", "TER", 2),
    ("exact_match_rate", "exact match", 3),
    ("fst_acceptance_rate", "FST acceptance", 3),
    ("semantic_score", "semantic", 3),
)


class SideBySideError(MtevalError):
    """A card that cannot stand on the page; its message is one line naming the card."""


@dataclass(frozen=True)
class Run:
    """One card as the page's header shows it."""

    column: str
    path: str
    card: RunCard

    @property
    def label(self) -> str:
        """The method's name, with the model when the card names one (``--mteval-model``)."""
        method = self.card.method.name if self.card.method is not None else ""
        model = self.card.model_slug
        if not method:
            return model or self.card.run_id
        return method if not model or model == f"method:{method}" else f"{method} [{model}]"


@dataclass(frozen=True)
class Cell:
    """One run's output for one entry, with the scores its card row carries."""

    shown: str
    kind: str  # "output", "error", "withheld" or "missing"
    chrf: float | None
    numbers: list[tuple[str, float | None, int]]
    flags: list[tuple[str, bool]]


@dataclass(frozen=True)
class Entry:
    entry_id: str
    source: str | None
    reference: str | None
    cells: list[Cell]
    spread: float | None


def read_cards(paths: Sequence[Path]) -> list[Run]:
    """Each card verified, and all of one corpus (dataset id, version and sha256)."""
    runs: list[Run] = []
    for index, path in enumerate(paths):
        try:
            raw = runcard.load(path)
            if "results" not in raw or "run_card_hash" not in raw:
                raise SideBySideError(
                    f"{path}: not a run card of this harness (results, run_card_hash): the "
                    "side-by-side page shows run cards only"
                )
            card = runcard.verify(raw, path)
        except runcard.RunCardError as exc:
            raise SideBySideError(str(exc)) from None
        runs.append(Run(_column(index), str(path), card))
    first = runs[0]
    for run in runs[1:]:
        if _corpus(run.card) != _corpus(first.card):
            raise SideBySideError(
                f"{run.path} is not of the corpus of {first.path}: "
                f"{_corpus_text(run.card)} against {_corpus_text(first.card)}"
            )
    return runs


def entries(runs: Sequence[Run]) -> list[Entry]:
    """Every entry any card holds, in the order the cards first list them."""
    by_run = [{str(row["entry_id"]): row for row in run.card.results} for run in runs]
    order: dict[str, None] = {}
    for rows in by_run:
        order.update(dict.fromkeys(rows))
    out: list[Entry] = []
    for entry_id in order:
        held = [rows[entry_id] for rows in by_run if entry_id in rows]
        cells = [_cell(rows.get(entry_id)) for rows in by_run]
        scores = [c.chrf for c in cells if c.chrf is not None]
        out.append(
            Entry(
                entry_id,
                _first_text(held, "source"),
                _first_text(held, "expected"),
                cells,
                max(scores) - min(scores) if len(scores) >= 2 else None,
            )
        )
    return out


def page(runs: Sequence[Run], top_spread: int = DEFAULT_TOP_SPREAD) -> str:
    """The whole page, one self-contained HTML file."""
    shown = entries(runs)
    ranked = sorted(
        (e for e in shown if e.spread is not None), key=lambda e: (-(e.spread or 0.0), e.entry_id)
    )
    rank = {e.entry_id: index + 1 for index, e in enumerate(ranked)}
    dataset = runs[0].card.dataset
    return render(
        "side_by_side.html.j2",
        title=f"{len(runs)} runs side by side: {dataset.id} {dataset.version}",
        dataset=dataset,
        runs=runs,
        run_numbers=RUN_NUMBERS,
        score=score,
        entries=shown,
        rank=rank,
        top_spread=max(0, top_spread),
        data={
            "dataset": {"id": dataset.id, "version": dataset.version, "sha256": dataset.sha256},
            "runs": [{"column": r.column, "path": r.path, "label": r.label} for r in runs],
            "entries": len(shown),
        },
    )


def write_page(paths: Sequence[Path], out: Path, top_spread: int = DEFAULT_TOP_SPREAD) -> int:
    """Write the page of the cards at ``paths`` to ``out``; the number of entries shown."""
    runs = read_cards(paths)
    text = page(runs, top_spread)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return len(entries(runs))


def score(card: RunCard, key: str) -> float | None:
    """A run-level score of the card, None when not measured."""
    value: Any = getattr(card.scores, key, None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _cell(row: ResultRow | None) -> Cell:
    if row is None:
        return Cell("(not in this run)", "missing", None, [], [])
    numbers = [(label, _number(row.get(key)), digits) for key, label, digits in ENTRY_NUMBERS]
    flags = [(label, bool(row.get(key))) for key, label in ENTRY_FLAGS if row.get(key) is not None]
    error = row.get("error")
    if error is not None:
        return Cell(f"(error: {error})", "error", 0.0, numbers, flags)
    predicted = row.get("predicted")
    if not isinstance(predicted, str):
        withheld = "(text withheld on the card)" if row.get("text_withheld") else "(no output)"
        return Cell(withheld, "withheld", _number(row.get("chrf_score")), numbers, flags)
    return Cell(predicted, "output", _number(row.get("chrf_score")), numbers, flags)


def _first_text(rows: Sequence[ResultRow], key: str) -> str | None:
    for row in rows:
        value = row.get(key)
        if isinstance(value, str):
            return value
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _corpus(card: RunCard) -> tuple[str, str, str]:
    return (card.dataset.id, card.dataset.version, card.dataset.sha256)


def _corpus_text(card: RunCard) -> str:
    d = card.dataset
    return f"dataset {d.id} version {d.version} sha256 {d.sha256[:12]}"


def _column(index: int) -> str:
    """A, B, ... Z, then R27, R28 ...: the short name of a run's column."""
    return chr(ord("A") + index) if index < 26 else f"R{index + 1}"
