"""The leaderboard's method-interface columns: tools used, open source, prompt version, temperature.

The method interface spec shows these beside the method: from its method card when one is
embedded, else from the harness's own record of the run. Open source is read from the
method's licence in method.json when that licence is known, the card's claim otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from pytest_mteval.cards.card_view import CardView
from pytest_mteval.methods.card_checks import licence_is_open

#: The prompt hash of a method without a system prompt (sha256 of the empty string).
NO_PROMPT_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


class MethodColumns(TypedDict):
    """The four columns' texts, as the leaderboard's ``Row`` takes them."""

    tools_used: str
    open_source: str
    prompt_version: str
    temperature: str


def method_columns(card: CardView) -> MethodColumns:
    """The four columns' texts for one card; "–" where the card says nothing."""
    return MethodColumns(
        tools_used=tools_used(card),
        open_source=open_source(card),
        prompt_version=prompt_version(card),
        temperature=temperature(card),
    )


def checked_class(card: CardView) -> str | None:
    """The method class of method.json, which the harness audited; the public card's only
    when there is no manifest (a card issued before cards were checked may contradict it)."""
    found = _manifest(card).get("class") or card.public.get("class")
    return str(found) if found else None


def tools_used(card: CardView) -> str:
    """The card's ``tools_used``, else the tools the run enabled."""
    tools = card.public.get("tools_used") or card.raw.get("tools_enabled") or []
    names = [str(t) for t in tools] if isinstance(tools, list) else []
    return ", ".join(names) or "–"


def open_source(card: CardView) -> str:
    """Yes or no from the method's licence, else from its card's claim."""
    manifest = _manifest(card)
    licence = manifest.get("license")
    verdict = licence_is_open(licence)
    if verdict is not None:
        return f"{'yes' if verdict else 'no'} ({licence})"
    claimed = card.public.get("open_source")
    if isinstance(claimed, bool):
        return "yes" if claimed else "no"
    return "–"


def prompt_version(card: CardView) -> str:
    """The run's ``prompt_version`` method arg or its card's, else its condition label;
    with the system prompt's short hash when it had one."""
    config = card.method.run_config if card.method is not None else {}
    args = config.get("method_args")
    chosen = (args if isinstance(args, Mapping) else {}).get("prompt_version")
    chosen = chosen or card.public.get("prompt_version")
    version = str(chosen or card.condition or "–")
    digest = card.raw.get("system_prompt_sha256")
    if isinstance(digest, str) and digest and digest != NO_PROMPT_SHA256:
        version += f" · {digest[:7]}"
    return version


def temperature(card: CardView) -> str:
    value = card.raw.get("temperature")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    return f"{value:g}"


def _manifest(card: CardView) -> Mapping[str, Any]:
    manifest = card.method.manifest if card.method is not None else None
    return manifest if isinstance(manifest, Mapping) else {}
