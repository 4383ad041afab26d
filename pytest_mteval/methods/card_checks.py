"""A method card checked against its method.json: what both say must agree.

The card is the public face of a method on the leaderboard; method.json is what the harness
audits and runs. A card may describe, never contradict: its id, class, dependency class,
model, runtime, language pairs and open-source claim are compared with the manifest's.
Both are read as plain JSON, so a card already issued can be checked too (``mteval publish``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mteval.languages import canonical
from pytest_mteval.methods.licences import LicenceSyntaxError, allows_redistribution

#: The fields a card and a manifest share under one name and must hold equal.
SAME_FIELDS = ("method_id", "class", "dependency_class", "model")


@dataclass(frozen=True)
class Contradiction:
    """One field the card states otherwise than the manifest."""

    field: str
    card_value: Any
    manifest_value: Any

    def message(self, card_file: str, manifest_file: str) -> str:
        """One line naming both files and the field."""
        return (
            f"{card_file}: field {self.field!r} is {self.card_value!r} but {manifest_file} "
            f"says {self.manifest_value!r}: a method card describes its method, it cannot "
            "contradict it"
        )


def contradiction(card: Mapping[str, Any], manifest: Mapping[str, Any]) -> Contradiction | None:
    """The first field the card states otherwise than the manifest, or None."""
    for field in SAME_FIELDS:
        if field in card and field in manifest and card[field] != manifest[field]:
            return Contradiction(field, card[field], manifest[field])
    if "runtime" in card and card["runtime"] not in _runtimes(manifest):
        return Contradiction("runtime", card["runtime"], _runtimes(manifest))
    pairs = manifest.get("supported_pairs") or []
    for pair in card.get("supported_pairs") or []:
        if not _covered(str(pair), pairs):
            return Contradiction("supported_pairs", pair, pairs)
    open_source, licensed = card.get("open_source"), licence_is_open(manifest.get("license"))
    if isinstance(open_source, bool) and licensed is not None and open_source != licensed:
        return Contradiction("open_source", open_source, f"license {manifest.get('license')}")
    return None


def licence_is_open(licence: Any) -> bool | None:
    """Whether a method's own licence is open: True, False, or None when not known."""
    if not isinstance(licence, str):
        return None
    try:
        return allows_redistribution(licence)
    except LicenceSyntaxError:
        return None


def _runtimes(manifest: Mapping[str, Any]) -> list[Any]:
    """The runtimes the method ships: its own and those of ``entry_points``."""
    runtime = manifest.get("runtime", "python")
    others = list((manifest.get("entry_points") or {}).keys())
    return [runtime, *others]


def _covered(pair: str, pairs: Sequence[Any]) -> bool:
    """Whether a card's pair is one the manifest supports (a ``*`` covers any)."""
    source, _, target = pair.partition(">")
    for declared in pairs:
        src, _, tgt = str(declared).partition(">")
        if str(declared) == "*" or (_same(src, source) and _same(tgt, target)):
            return True
    return False


def _same(declared: str, given: str) -> bool:
    return declared.strip() == "*" or canonical(declared) == canonical(given)
