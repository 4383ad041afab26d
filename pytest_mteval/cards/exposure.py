"""What a method declared of its exposure to evaluation data, set against the run's corpus.

Spec §9.2.2 allows few-shot use of development entries when it is declared; §9.2.1 forbids
exposure to gold_standard or held_out entries. A run scored on the very corpus and segments a
method declares it used says so on its card (and so on the terminal, which shows the card's
flags): a note for development entries (the score is over entries the method has seen), and a
flag that keeps the card off every ranked board for a secret segment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from pytest_mteval.methods.manifest import Exposure, MethodManifest

SECRET: Final = frozenset({"gold_standard", "held_out"})
#: The flag a card carries when its method declares exposure to the secret entries scored.
EXPOSED_TO_SECRET: Final = "exposed_to_evaluation_data"
#: The note when the method declares use of the development entries scored.
DECLARED_DEVELOPMENT_USE: Final = "declared_development_use"


def exposure_record(manifest: MethodManifest | None) -> list[dict[str, Any]]:
    """The card's ``method.exposure``: every declaration as written."""
    if manifest is None:
        return []
    return [item.model_dump(exclude_none=True) for item in manifest.exposure]


def matching(
    declared: Sequence[Exposure], dataset_id: str, version: str, sha256: str
) -> list[Exposure]:
    return [item for item in declared if item.names(dataset_id, version, sha256)]


def exposure_flags(
    manifest: MethodManifest | None,
    dataset_id: str,
    version: str,
    sha256: str,
    scored_segments: Iterable[str],
) -> list[dict[str, Any]]:
    """The flags of a run whose method declares use of the entries it is scored on."""
    if manifest is None:
        return []
    scored = set(scored_segments)
    flags: list[dict[str, Any]] = []
    for item in matching(manifest.exposure, dataset_id, version, sha256):
        seen = sorted(set(item.segments) & scored)
        if not seen:
            continue
        secret = [s for s in seen if s in SECRET]
        which = f"{item.use} use of {dataset_id} segment(s) {', '.join(seen)}"
        ids = [str(i) for i in item.entry_ids or ()]
        if secret:
            flags.append(
                {
                    "code": EXPOSED_TO_SECRET,
                    "message": f"method {manifest.method_id!r} declares {which} it is scored on: "
                    f"exposure to {', '.join(secret)} entries breaks spec §9.2.1, so this card "
                    "is not ranked",
                    "entry_ids": ids,
                }
            )
        else:
            flags.append(
                {
                    "code": DECLARED_DEVELOPMENT_USE,
                    "message": f"method {manifest.method_id!r} declares {which} (exposure in "
                    "its method.json, spec §9.2.2): it is scored on entries it has seen",
                    "entry_ids": ids,
                }
            )
    return flags


def exposed_to_secret(card: dict[str, Any] | Any) -> bool:
    """Whether a card carries the flag that keeps it off the ranked boards."""
    flags = card.get("flags") if isinstance(card, dict) else None
    return any(isinstance(f, dict) and f.get("code") == EXPOSED_TO_SECRET for f in flags or ())
