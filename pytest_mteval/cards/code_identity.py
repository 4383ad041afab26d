"""Whether two cards ran the same code: a reproduction or a maintainer's verification counts
only over the card's own code hash (``method.code.sha256``), not its folder's name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def code_sha256(card: Mapping[str, Any]) -> str | None:
    """The card's code hash (its distribution's for a method without a folder), or None."""
    method = card.get("method")
    code = method.get("code") if isinstance(method, Mapping) else None
    if not isinstance(code, Mapping):
        return None
    found = code.get("sha256")
    if isinstance(found, str):
        return found
    distribution = code.get("distribution")
    found = distribution.get("sha256") if isinstance(distribution, Mapping) else None
    return found if isinstance(found, str) else None


def code_problem(card: Mapping[str, Any], other: Mapping[str, Any]) -> str | None:
    """Why ``other`` did not run ``card``'s code, or None when both name one code hash."""
    own, theirs = code_sha256(card), code_sha256(other)
    if own is None:
        return "the card records no code hash: no run can be shown to have run its code"
    if theirs is None:
        return "it records no code hash"
    if own != theirs:
        return f"it ran other code (code sha256 {theirs[:12]}, the card's {own[:12]})"
    return None
