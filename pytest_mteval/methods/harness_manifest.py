"""A reference-harness plugin's ``method.json`` mapped onto ours, so its plugins run unchanged.

Its manifests name a ``class`` of their own ("example") and declare no dependency class,
dependencies or supported pairs. What cannot be known is checked rather than trusted:
the class becomes ``custom-plugin`` (its own value kept as ``harness_class``), the pairs ``*``,
and, with no dependency declared, the dependency class S: the method runs offline, in the
sandbox by default, and the static audit refuses one whose code reaches the network or the
harness's internals (it must then declare its dependencies in method.json, as ours do).
``compatibility_shim`` marks the manifest, and the card carries that note.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

#: The note the manifest and the card carry.
SHIM_NOTE: Final = (
    "reference-harness plugin run through the compatibility shim (its method.json mapped, "
    "its RunConfig fields and result dicts adapted; no dependency declared: class S, offline)"
)
#: The note for a manifest of ours that asks for the shim.
COMPLETED_NOTE: Final = (
    "reference-harness method run through the compatibility shim (its RunConfig fields and "
    "result dicts adapted; its method.json declares its dependencies)"
)
_OURS_ONLY: Final = ("dependency_class", "dependencies", "supported_pairs")


def is_harness_manifest(raw: Any) -> bool:
    """A reference-harness method.json: an object with an entry point and none of the fields
    our manifests must have (a manifest of ours missing one of them is not this)."""
    return (
        isinstance(raw, dict)
        and isinstance(raw.get("entry_point"), str)
        and not any(key in raw for key in _OURS_ONLY)
    )


def mapped_manifest(raw: Mapping[str, Any], our_classes: Collection[str]) -> dict[str, Any]:
    """The reference-harness manifest as ours (validated by the caller)."""
    given = raw.get("class")
    method_class = given if isinstance(given, str) and given in our_classes else "custom-plugin"
    mapped = {
        **raw,
        "class": method_class,
        "supported_pairs": ["*"],
        "dependency_class": "S",
        "dependencies": [],
        "compatibility_shim": SHIM_NOTE,
    }
    if "name" not in mapped and isinstance(raw.get("method_id"), str):
        mapped["name"] = raw["method_id"]
    if given != method_class:
        mapped["harness_class"] = given
    return mapped


def shim_note(extra: Mapping[str, Any] | None) -> dict[str, str]:
    """The card's ``compatibility_shim`` field for a manifest's extra fields, or nothing.

    A manifest of ours (completed: dependencies declared) runs its method through the shim too
    when it says ``"compatibility": "reference-harness"``."""
    extra = extra or {}
    note = extra.get("compatibility_shim")
    if not isinstance(note, str) and extra.get("compatibility") == "reference-harness":
        note = COMPLETED_NOTE
    return {"compatibility_shim": note} if isinstance(note, str) else {}
