"""The run's fingerprint (benchmark spec §3.8): sha256 of the ordered concatenation of its
eight components, written so that a reader of the spec can recompute it, and the older form
still read, so that no card already issued stops verifying.

The text hashed (UTF-8), for a third party:

``dataset.sha256 | model_slug | condition | system_prompt_sha256 | temperature |
harness_version | batch_size | tools_enabled`` (no spaces), where

- ``|`` separates the components, so that no two configurations concatenate alike; in a
  text component ``\\`` is written ``\\\\`` and ``|`` is written ``\\|``;
- temperature is the shortest decimal that reads back as the same number, without exponent,
  trailing zeros or trailing point (0.0 -> ``0``, 0.7 -> ``0.7``);
- batch_size is its decimal digits, or nothing when null;
- tools_enabled is the tool names sorted, each escaped as above and ``,`` also written
  ``\\,``, joined by ``,``.

Older cards (before issue 42) carry sha256 of the JSON array of the same eight components.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final, Literal

from pytest_mteval.cards.card_model import RunCard

#: The forms a card's fingerprint may take: the spec's, and the one cards had before it.
Form = Literal["concatenation", "json-array"]
SEPARATOR: Final = "|"


def components(card: Mapping[str, Any]) -> list[Any]:
    """The eight components in the spec's order; KeyError or TypeError when one is missing."""
    return [
        card["dataset"]["sha256"],
        card["model_slug"],
        card["condition"],
        card["system_prompt_sha256"],
        card["temperature"],
        card["harness_version"],
        card["batch_size"],
        sorted(card.get("tools_enabled") or []),
    ]


def concatenated(card: Mapping[str, Any]) -> str:
    """The text the spec's fingerprint hashes (see the module's note)."""
    sha, model, condition, prompt, temperature, harness, batch, tools = components(card)
    parts = [
        _text(sha),
        _text(model),
        _text(condition),
        _text(prompt),
        _decimal(temperature),
        _text(harness),
        "" if batch is None else str(batch) if type(batch) is int else _text(batch),
        ",".join(_text(tool).replace(",", "\\,") for tool in tools),
    ]
    return SEPARATOR.join(parts)


def fingerprint(card: Mapping[str, Any]) -> str:
    """The spec's fingerprint of a card (or of the fields a run will write)."""
    return hashlib.sha256(concatenated(card).encode("utf-8")).hexdigest()


def json_array_fingerprint(card: Mapping[str, Any]) -> str:
    """The fingerprint of cards sealed before issue 42: sha256 of the components' JSON array."""
    encoded = json.dumps(components(card), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def form_of(card: Mapping[str, Any]) -> Form | None:
    """Which form the card's own fingerprint takes, None when it matches neither (edited);
    KeyError or TypeError when a component is missing."""
    found = card.get("fingerprint")
    if found == fingerprint(card):
        return "concatenation"
    if found == json_array_fingerprint(card):
        return "json-array"
    return None


def same_configuration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two cards ran one configuration (spec §3.8), whichever form each carries: both
    recomputed in the spec's form; cards without the components compare as written."""
    try:
        return fingerprint(a) == fingerprint(b)
    except (KeyError, TypeError, ValueError):
        return a.get("fingerprint") == b.get("fingerprint")


def _text(value: Any) -> str:
    # a component that is not text is refused by the card's schema, checked beside
    found = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return found.replace("\\", "\\\\").replace(SEPARATOR, "\\" + SEPARATOR)


def _decimal(value: Any) -> str:
    """The shortest decimal that reads back as ``value``, without exponent (0.0 -> "0")."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _text(value)  # refused by the card's schema, checked beside
    text = format(Decimal(repr(float(value))), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def card_fingerprint(card: RunCard) -> str:
    """A verified card's configuration in the spec's form, whichever form it was sealed with
    (a sweep resumes with a card made before issue 42)."""
    return fingerprint(
        {
            "dataset": {"sha256": card.dataset.sha256},
            "model_slug": card.model_slug,
            "condition": card.condition,
            "system_prompt_sha256": card.system_prompt_sha256,
            "temperature": card.temperature,
            "harness_version": card.harness_version,
            "batch_size": card.batch_size,
            "tools_enabled": card.tools_enabled,
        }
    )
