"""The index of runs in ``.mteval/runs/index.jsonl``: one line per written card.

Every run writes a card, including ``-k``, ``--lf`` and ``-x`` runs; the index lets a person
list them (``mteval runs``), find the latest complete one (``--mteval-compare=latest``) and
keep the folder from growing without end (``mteval_keep_runs``). A partial run is marked on
its card (``coverage``) and in the index, and is never picked as a baseline or as "latest".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.coverage import is_partial
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import parse_json

INDEX_NAME = "index.jsonl"


class HistoryError(MtevalError):
    """A run reference that cannot be resolved; the message is one line."""


def index_row(card: RunCard, path: Path) -> dict[str, Any]:
    """What ``mteval runs`` shows of a card, without reading the card again."""
    scores = card.scores
    ci = (scores.confidence_intervals or {}).get("composite")
    gate = card.gate
    gated = gate is not None and bool(gate.baseline or gate.metrics)
    method = card.method
    return {
        "run_id": card.run_id,
        "timestamp": card.timestamp,
        "path": str(path),
        "method": None if method is None else getattr(method, "method_id", None) or method.name,
        "model": card.model_slug,
        "corpus": card.dataset.id,
        "composite": scores.composite,
        "composite_ci": [ci.lower, ci.upper] if ci is not None and ci.model_fields_set else None,
        "tier": scores.quality_tier,
        "gate": None if gate is None or not gated else ("passed" if gate.passed else "failed"),
        "complete": not is_partial(card),
        "incomplete_reason": card.incomplete_reason if card.complete is False else None,
    }


def record_run(runs_dir: Path, card: RunCard, path: Path) -> None:
    """Append the run to the index (one short write: concurrent runs interleave whole lines)."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    line = json.dumps(index_row(card, path.resolve()), ensure_ascii=False) + "\n"
    with (runs_dir / INDEX_NAME).open("a", encoding="utf-8") as handle:
        handle.write(line)


def read_index(runs_dir: Path) -> list[dict[str, Any]]:
    """The index's rows, oldest first; unreadable lines and vanished cards are left out."""
    try:
        text = (runs_dir / INDEX_NAME).read_text(encoding="utf-8")
    except OSError:
        return []
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            row = parse_json(line.encode("utf-8"), str(runs_dir / INDEX_NAME))
        except MtevalError:  # a line of any depth or shape is left out, never a traceback
            continue
        if isinstance(row, dict) and Path(str(row.get("path"))).is_file():
            rows.append(row)
    return rows


def prune(runs_dir: Path, keep: int) -> list[Path]:
    """Delete the oldest cards inside ``runs_dir`` beyond the newest ``keep``; return them.

    Cards written elsewhere (``--mteval-run-card``) stay listed and are never deleted here.
    """
    rows = read_index(runs_dir)
    inside = [r for r in rows if Path(r["path"]).resolve().parent == runs_dir.resolve()]
    doomed = inside[: max(0, len(inside) - keep)]
    removed: list[Path] = []
    for row in doomed:
        try:
            Path(row["path"]).unlink()
            removed.append(Path(row["path"]))
        except OSError:
            continue
    if removed:
        gone = {str(p) for p in removed}
        kept = [json.dumps(r, ensure_ascii=False) + "\n" for r in rows if r["path"] not in gone]
        tmp = runs_dir / f".{INDEX_NAME}.{os.getpid()}.tmp"
        tmp.write_text("".join(kept), encoding="utf-8")
        os.replace(tmp, runs_dir / INDEX_NAME)
    return removed


def resolve_run(runs_dir: Path, ref: str, base: Path) -> Path:
    """``latest`` (newest complete run), a run id (or its first characters), or a card path."""
    rows = read_index(runs_dir)
    if ref == "latest":
        complete = [r for r in rows if r.get("complete")]
        if not complete:
            raise HistoryError(f"no complete run recorded in {runs_dir / INDEX_NAME} yet")
        return Path(complete[-1]["path"])
    path = base / ref
    if path.is_file():
        return path
    matches = [r for r in rows if str(r.get("run_id") or "").startswith(ref)] if ref else []
    if len({r["run_id"] for r in matches}) == 1:
        return Path(matches[-1]["path"])
    if matches:
        raise HistoryError(f"run {ref!r} is ambiguous: {len(matches)} runs start with it")
    raise HistoryError(f"{ref!r} is neither a card file nor a run id in {runs_dir / INDEX_NAME}")
