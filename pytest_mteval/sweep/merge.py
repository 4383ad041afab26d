"""One matrix from the cards of many shards' artifact folders, each card verified first.

A CI matrix or a job array leaves one folder per shard. Their cards are checked one by one
(schema, hash and fingerprint; the signature when public keys are given; the fingerprint the
shard planned): a card that fails is listed apart with its reason, not dropped silently and
not shown. The indexes record the whole sweep's labels, so a combination no shard ran is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from pytest_mteval.cards import runcard
from pytest_mteval.cards.signing import key_fingerprint, verify_signature
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.reports.markdown import md_text
from pytest_mteval.sweep.matrix import (
    DEFAULT_FLOOR,
    MatrixError,
    MatrixRow,
    matrix_markdown,
    values_of,
)
from pytest_mteval.sweep.shards import SHARD_INDEX_GLOB, WHOLE_INDEX


@dataclass(frozen=True)
class Rejected:
    """A card left out of the matrix, and why."""

    where: str
    reason: str


@dataclass
class Merged:
    """The verified rows, the cards left out, and the planned labels no card stands for."""

    rows: list[MatrixRow] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Planned:
    label: str
    values: dict[str, Any]
    card: Path
    configuration: str
    fingerprint: str | None


def gather(sources: Sequence[Path], keys: Sequence[Ed25519PublicKey] = ()) -> Merged:
    """Every source's cards, verified; one row per label (its newest card when two agree)."""
    merged = Merged()
    planned: list[str] = []
    found: dict[str, list[tuple[MatrixRow, str | None]]] = {}
    accounted: set[str] = set()
    for source in sources:
        for item in _planned(source, planned):
            row, reason = _verified(item, keys)
            accounted.add(item.label)
            if row is None:
                merged.rejected.append(Rejected(str(item.card), reason or "?"))
            else:
                found.setdefault(item.label, []).append((row, item.fingerprint))
    for label, rows in found.items():
        prints = {row.card.fingerprint for row, _ in rows}
        if len(prints) > 1:
            where = ", ".join(str(row.path) for row, _ in rows)
            merged.rejected.append(
                Rejected(label, f"cards of {len(prints)} different fingerprints ({where})")
            )
            continue
        merged.rows.append(max((row for row, _ in rows), key=lambda r: r.path.name))
    merged.missing = [label for label in dict.fromkeys(planned) if label not in accounted]
    return merged


def _planned(source: Path, planned: list[str]) -> list[_Planned]:
    """The cards a source holds: a card file, a folder's indexes, or its bare cards."""
    if not source.is_dir():
        return [_Planned(source.stem, {}, source, "", None)]
    indexes = [source / WHOLE_INDEX] if (source / WHOLE_INDEX).is_file() else []
    indexes += sorted(source.glob(SHARD_INDEX_GLOB))
    if not indexes:
        return [_Planned(p.stem, {}, p, "", None) for p in sorted(source.rglob("*.json"))]
    out: list[_Planned] = []
    for index_path in indexes:
        index = read_json(index_path, "a sweep index", MatrixError)
        try:
            planned += [str(label) for label in index.get("planned_labels") or ()]
            for run in index["runs"]:
                label = str(run["label"])
                planned.append(label)
                if run.get("card"):
                    out.append(
                        _Planned(
                            label,
                            dict(run["values"]),
                            _card_path(source, label, str(run["card"])),
                            str(run.get("configuration") or label),
                            run.get("fingerprint"),
                        )
                    )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise MatrixError(
                f"{index_path}: not a sweep index ({type(exc).__name__}: {exc})"
            ) from None
    return out


def _card_path(folder: Path, label: str, recorded: str) -> Path:
    """A card the index names, first in this folder (``cards/<label>/`` or ``cards/``: an
    artifact downloaded elsewhere than where its shard ran), else where it was recorded."""
    name = Path(recorded).name
    for here in (folder / "cards" / label / name, folder / "cards" / name):
        if here.is_file():
            return here
    return Path(recorded)


def _verified(
    item: _Planned, keys: Sequence[Ed25519PublicKey]
) -> tuple[MatrixRow | None, str | None]:
    """The card's row, or None and the first reason it does not verify."""
    try:
        raw = runcard.load(item.card)
        card = runcard.verify(raw, item.card)
    except MtevalError as exc:
        return None, str(exc).removeprefix(f"{item.card}: ")
    if item.fingerprint is not None and card.fingerprint != item.fingerprint:
        return None, (
            f"fingerprint {card.fingerprint[:12]} is not the {item.fingerprint[:12]} its shard "
            f"planned for {item.label}"
        )
    if keys:
        reason = _signature_problem(raw, keys, item.card)
        if reason is not None:
            return None, reason
    values = item.values or values_of(card)
    return MatrixRow(item.label, values, card, item.card, item.configuration or item.label), None


def _signature_problem(
    raw: dict[str, Any], keys: Sequence[Ed25519PublicKey], path: Path
) -> str | None:
    """Why the card is not signed by one of ``keys``; None when it is."""
    block = raw.get("signature")
    if not isinstance(block, dict):
        return "not signed (public keys were given)"
    signer = block.get("public_key_sha256")
    key = next((k for k in keys if key_fingerprint(k) == signer), None)
    if key is None:
        return f"signed by key {str(signer)[:16]}…, none of the given public keys"
    try:
        verify_signature(raw, key, str(path))
    except MtevalError as exc:
        return str(exc).removeprefix(f"{path}: ")
    return None


def merged_markdown(
    merged: Merged, method: str | None = None, floor: float = DEFAULT_FLOOR
) -> list[str]:
    """The matrix of the verified rows, then the cards left out and the runs never carded."""
    lines = matrix_markdown(merged.rows, method, floor) if merged.rows else ["No card verifies."]
    if merged.rejected:
        lines += ["", f"Not verified, left out of the matrix: {len(merged.rejected)}", ""]
        lines += [f"- {md_text(r.where)}: {md_text(r.reason)}" for r in merged.rejected]
    if merged.missing:
        lines += ["", f"Planned, with no card in these folders: {len(merged.missing)}", ""]
        lines.append("  " + ", ".join(md_text(label) for label in merged.missing))
    return lines
