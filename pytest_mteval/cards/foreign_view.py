"""The reference harness's run cards and run reports as the pages and commands read our cards:
``mteval verify``, ``show``, ``report`` and ``leaderboard`` take either.

A foreign file is verified by its own rules (a card: its run_card_hash and fingerprint, see
``foreign_card.py``; a report, which carries no hash: its own corpus chrF++ must agree with its
predictions re-scored by our code), then read as the view our cards are read as too
(``card_view.py``: it cannot honestly validate as our RunCard). The view is
marked wherever it is shown: ``[foreign ...]`` after the method's name, a ``foreign`` flag,
and a ``foreign`` block naming its origin. Scores are ours where we can compute them (a
report's, re-scored from its predictions; a card's composite, recomputed from its metrics).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from pydantic import ValidationError

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_model import Flag, MethodInfo, Totals
from pytest_mteval.cards.card_view import CardView, DatasetView, ForeignMark, ShownScores, view_of
from pytest_mteval.cards.foreign_card import (
    ORIGIN,
    foreign_composite,
    foreign_metrics,
    is_foreign_card,
    verify_foreign_card,
)
from pytest_mteval.metrics.entry_record import ResultRow
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.comparable_run import from_harness_report, is_harness_report

REPORT_ORIGIN: Final = "foreign report (reference harness)"
#: A report's own corpus chrF++ is rounded; more than this from ours means it is not its own.
_ROUNDING: Final = 0.01


def read_verified(path: Path) -> tuple[CardView, str | None]:
    """Our card (verified), or a foreign card or report (verified by its rules), as the view;
    with the line saying what was verified for a foreign file (None for ours)."""
    raw = runcard.load(path)
    if is_foreign_card(raw):
        verify_foreign_card(raw, path)
        line = (
            f"{ORIGIN} {raw['harness_version']}: its run_card_hash and fingerprint verify "
            f"({raw['run_card_hash'][:12]}); run-level scores only, no per-entry results"
        )
        return _read(card_view, raw, path), line
    if is_harness_report(raw):
        view = _read(report_view, raw, path)
        reported = view.foreign.reported_chrf if view.foreign is not None else None
        return view, (
            f"{REPORT_ORIGIN}: no run_card_hash to check (its reports carry none); its "
            f"{len(view.results)} predictions re-scored by our code agree with its own "
            f"corpus chrF++ ({reported:.2f})"
        )
    return view_of(runcard.verify(raw, path), raw), None


def _read(
    reader: Callable[[Mapping[str, Any], Path], CardView], raw: Mapping[str, Any], path: Path
) -> CardView:
    """``reader``'s view; a field of a type it did not expect is one line, never a traceback
    (the readers name the fields they check; this names the file for the others)."""
    try:
        return reader(raw, path)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise runcard.RunCardError(
            f"{path}: foreign file: a field of the wrong type ({type(exc).__name__}: {exc})"
        ) from None


_LATENCIES: Final = ("median_latency_seconds", "p95_latency_seconds", "avg_latency_seconds")


def _marked(
    path: Path,
    identity: _Identity,
    origin: str,
    name: str,
    shown: dict[str, Any],
    totals: Mapping[str, Any],
    reported_chrf: float | None = None,
) -> CardView:
    """The view of a foreign file, marked as one: its method's name, its flag, its origin. Its
    scores and totals are checked strictly (never converted): RunCardError naming the first
    field of the wrong type."""
    note = f"{origin}: read through the compatibility view, not a pytest-mteval run card"
    try:
        scores = ShownScores.model_validate(shown, strict=True)
        costs = Totals.model_validate(dict(totals), strict=True)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise runcard.RunCardError(f"{path}: foreign file: {where}: {err['msg']}") from None
    return CardView(
        run_id=identity.run_id,
        timestamp=identity.timestamp,
        model_slug=identity.model_slug,
        model_id=identity.model_id,
        condition=identity.condition,
        run_card_hash=identity.run_card_hash,
        dataset=identity.dataset,
        method=MethodInfo(name=f"{name} [{origin}]", dependency_class=None),
        scores=scores,
        totals=costs,
        results=identity.results,
        flags=(Flag(code="foreign", message=note, entry_ids=[]),),
        foreign=ForeignMark(origin=origin, note=note, reported_chrf=reported_chrf),
        raw={  # what the leaderboard's checks read of it (CardView.raw)
            "run_id": identity.run_id,
            "run_card_hash": identity.run_card_hash,
            "scores": {"composite": scores.composite},
        },
    )


@dataclass(frozen=True)
class _Identity:
    """What a foreign file says of its run, as the view holds it."""

    run_id: str
    timestamp: str
    model_slug: str
    model_id: str | None
    condition: str
    run_card_hash: str | None
    dataset: DatasetView
    results: Sequence[ResultRow] = ()


def card_view(card: Mapping[str, Any], path: Path) -> CardView:
    """A verified foreign card as the view (no results)."""
    scores: Mapping[str, Any] = card["scores"]
    dataset: Mapping[str, Any] = card["dataset"]
    public = card.get("method_card") if isinstance(card.get("method_card"), dict) else {}
    name = str((public or {}).get("name") or card["model_slug"])
    numbers = {k: scores.get(k) for k in ("errors", "total", "quality_tier")}
    latency = {k: scores.get(k) for k in _LATENCIES}
    shown = {
        **foreign_metrics(card),
        **numbers,
        **latency,
        "composite": foreign_composite(card),
        "scoring_profile": scoring.PROFILE_B,
        "reported_composite": scores.get("composite"),
    }
    identity = _Identity(
        run_id=card["run_id"],
        timestamp=card["timestamp"],
        model_slug=card["model_slug"],
        model_id=None if card.get("model_id") is None else str(card.get("model_id")),
        condition=card["condition"],
        run_card_hash=card["run_card_hash"],
        dataset=DatasetView(
            id=dataset["id"],
            version=dataset["version"],
            language_pair=str(dataset.get("language_pair")),
            sha256=dataset["sha256"],
            entry_count=_count(path, dataset.get("entry_count"), scores.get("total")),
        ),
    )
    return _marked(path, identity, ORIGIN, name, shown, card.get("totals") or {})


def report_view(report: Mapping[str, Any], path: Path) -> CardView:
    """A foreign report re-scored by our code as the view (with its entries);
    RunCardError when it is malformed or its own chrF++ is not that of its predictions."""
    entries = report.get("entries")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "id" in e for e in entries):
        raise runcard.RunCardError(f"{path}: malformed reference-harness report: entries[]")
    try:
        run = from_harness_report(report, str(path))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise runcard.RunCardError(f"{path}: malformed reference-harness report: {exc!r}") from None
    overall: Mapping[str, Any] = report.get("overall") or {}
    theirs, ours = overall.get("corpus_chrf"), run.metrics.get("chrf_plus_plus")
    if not isinstance(theirs, int | float) or ours is None or abs(theirs - ours) > _ROUNDING:
        raise runcard.RunCardError(
            f"{path}: its own corpus chrF++ {theirs!r} is not that of its predictions "
            f"re-scored by our code ({ours!r}): edited, or not its own entries"
        )
    config: Mapping[str, Any] = report.get("config") or {}
    rows: list[ResultRow] = [
        cast(ResultRow, {k: v for k, v in row.items() if k != "stats"}) for row in run.rows.values()
    ]
    latencies = sorted(
        float(s) for r in rows if _is_number(s := r.get("latency_s")) and s is not None
    )
    run_id = str(report.get("run_id") or path.stem)
    corpus = str(config.get("corpus_path") or "")
    model_id = config.get("_model_id") or config.get("model")
    shown = {
        **run.metrics,
        "composite": run.composite,
        "scoring_profile": run.profile,
        "errors": sum(1 for r in rows if r.get("error") is not None),
        "total": len(rows),
        "median_latency_seconds": statistics.median(latencies) if latencies else None,
        "p95_latency_seconds": latencies[int(0.95 * (len(latencies) - 1))] if latencies else None,
    }
    costs = {"total_cost_usd": sum(_cost(path, r) for r in rows)}
    identity = _Identity(
        run_id=run_id,
        timestamp=_timestamp(run_id),
        model_slug=str(config.get("model") or "?"),
        model_id=None if model_id is None else str(model_id),
        condition=str(config.get("prompt_version") or "?"),
        run_card_hash=None,
        dataset=DatasetView(
            id=str(config.get("dataset_id") or Path(corpus).stem or "?"),
            version="unrecorded",
            language_pair=f"{config.get('source_lang') or '?'}>{config.get('target_lang') or '?'}",
            sha256="unrecorded",  # a reference-harness report records none
            entry_count=len(rows),
        ),
        results=rows,
    )
    name = str(config.get("model") or run_id)
    return _marked(path, identity, REPORT_ORIGIN, name, shown, costs, float(theirs))


def _timestamp(run_id: str) -> str:
    """``run_20260612_124749_...`` -> ``2026-06-12T12:47:49`` (its reports keep no other)."""
    parts = run_id.split("_")
    if len(parts) > 2 and parts[1].isdigit() and parts[2].isdigit() and len(parts[1]) == 8:
        d, t = parts[1], parts[2]
        return f"{d[:4]}-{d[4:6]}-{d[6:]}T{t[:2]}:{t[2:4]}:{t[4:6]}"
    return "unknown"


def _count(path: Path, entry_count: Any, total: Any) -> int:
    """The card's entry count (checked by its verifier) or its scores' total."""
    if entry_count:
        return int(entry_count)
    if total is None:
        return 0
    if not _is_number(total) or int(total) != total or total < 0:
        raise runcard.RunCardError(
            f"{path}: foreign card: field 'scores.total' must be a whole number >= 0"
        )
    return int(total)


def _cost(path: Path, row: Mapping[str, Any]) -> float:
    cost = row.get("cost_usd")
    if cost is None:
        return 0.0
    if not _is_number(cost):
        raise runcard.RunCardError(
            f"{path}: foreign report: entry {row.get('entry_id')!r}: field 'cost_usd' must be "
            f"a number, got {type(cost).__name__}"
        )
    return float(cost)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
