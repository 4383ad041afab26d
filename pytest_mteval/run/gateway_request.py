"""What a method may ask the gateway for: a request body parsed strictly and rebuilt from an
allow-list, so that nothing the method wrote reaches the upstream verbatim.

The allow-list is what the shipped chat methods send (``llm/client.py``): ``model``,
``messages`` (``role`` and a string ``content`` each), ``temperature`` and ``max_tokens``;
``stream: false`` is accepted and dropped. Anything else (``n``, ``models`` fallback lists,
``route``, ``plugins``, a message's ``name``) is refused with the field named, as is a JSON
object with a key twice (a proxy and the upstream could read different ones). ``max_tokens``
is capped (:data:`MAX_TOKENS_CAP`) and set to the cap when the method names none.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

#: The most completion tokens one forwarded request may ask for (and what it asks for when
#: the method names no limit).
MAX_TOKENS_CAP: Final = 4096
#: The most messages one request may carry.
MAX_MESSAGES: Final = 256
ROLES: Final = frozenset({"system", "user", "assistant"})
TOP_FIELDS: Final = frozenset({"model", "messages", "temperature", "max_tokens", "stream"})
MESSAGE_FIELDS: Final = frozenset({"role", "content"})


class BadRequest(Exception):
    """The body is refused; ``str()`` is the one-line reason handed back to the method."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list[dict[str, str]]
    temperature: float | None
    max_tokens: int

    def body(self) -> bytes:
        """The body the gateway forwards, written by the gateway."""
        out: dict[str, Any] = {"model": self.model, "messages": self.messages}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        out["max_tokens"] = self.max_tokens
        return json.dumps(out, ensure_ascii=False).encode("utf-8")

    def logged(self) -> dict[str, Any]:
        return json.loads(self.body())  # type: ignore[no-any-return]


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BadRequest(f"duplicate key {key!r} in the request body")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise BadRequest(f"{name} is not a JSON number")


def parse_json(body: bytes) -> Any:
    """Strict JSON: UTF-8, no duplicate keys, no NaN/Infinity; BadRequest otherwise."""
    try:
        text = body.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise BadRequest("the request body is not UTF-8") from None
    except RecursionError:
        raise BadRequest("the request body is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
        raise BadRequest(f"the request body is not JSON ({str(exc).split(':')[0]})") from None


def parse_request(body: bytes, models: list[str], max_tokens_cap: int) -> ChatRequest:
    """The request rebuilt from ``body``, or BadRequest naming the first field refused."""
    parsed = parse_json(body)
    if not isinstance(parsed, dict):
        raise BadRequest("the request body is not a JSON object")
    for key in parsed:
        if key not in TOP_FIELDS:
            allowed = ", ".join(sorted(TOP_FIELDS))
            raise BadRequest(f"field {key!r} is not allowed through the gateway ({allowed})")
    if parsed.get("stream") not in (None, False):
        raise BadRequest("the gateway does not stream: send stream=false")
    model = parsed.get("model")
    if not isinstance(model, str):
        raise BadRequest("field 'model' must be a string")
    if model not in models:
        allowed = ", ".join(models) or "none"
        reason = f"model {model!r} is not declared in the method's manifest (allowed: {allowed})"
        raise BadRequest(reason, 403)
    return ChatRequest(
        model=model,
        messages=_messages(parsed.get("messages")),
        temperature=_temperature(parsed.get("temperature")),
        max_tokens=_max_tokens(parsed.get("max_tokens"), max_tokens_cap),
    )


def _messages(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_MESSAGES:
        raise BadRequest(f"field 'messages' must be a list of 1 to {MAX_MESSAGES} messages")
    out = []
    for number, message in enumerate(value):
        where = f"messages[{number}]"
        if not isinstance(message, dict):
            raise BadRequest(f"field {where!r} must be an object with role and content")
        for key in message:
            if key not in MESSAGE_FIELDS:
                raise BadRequest(f"field '{where}.{key}' is not allowed (role, content)")
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            raise BadRequest(f"field '{where}.role' must be one of {', '.join(sorted(ROLES))}")
        if not isinstance(content, str):
            raise BadRequest(f"field '{where}.content' must be a string")
        try:
            content.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest(f"field '{where}.content' holds a lone surrogate") from None
        out.append({"role": str(role), "content": content})
    return out


def _temperature(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest("field 'temperature' must be a number from 0 to 2")
    if not (math.isfinite(value) and 0 <= value <= 2):
        raise BadRequest("field 'temperature' must be a number from 0 to 2")
    return float(value)


def _max_tokens(value: Any, cap: int) -> int:
    if value is None:
        return cap
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadRequest("field 'max_tokens' must be a positive integer")
    if value > cap:
        raise BadRequest(f"max_tokens {value} is over the gateway's cap of {cap}")
    return value
