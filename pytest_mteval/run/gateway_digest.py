"""What a secret run's audit log keeps of a request and its answer: no text (spec §8.2).

On a scores-only run (an encrypted corpus, gold_standard or held_out entries,
``--mteval-scores-only``) the bodies the gateway sees are the corpus's sources and the
model's translations, so the log records, per request, what a reviewer and the hash chain
need without them: the size and sha256 of each body (which match the provider's own logs),
the allow-listed model, the token counts, the status and why it stopped. Everything the
method chooses (the path, the HTTP method, a refused body) is hashed too, unless it is one of
the few values the gateway itself knows; the provider's free text (an error message may
quote the prompt) is never kept.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

#: Request lines a method may send that are harness vocabulary, logged as they are.
KNOWN_METHODS: Final = frozenset({"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"})
KNOWN_PATHS: Final = frozenset({"/v1/chat/completions", "/chat/completions"})
#: Integer usage fields an answer's ``usage`` carries.
USAGE_FIELDS: Final = ("prompt_tokens", "completion_tokens", "total_tokens")
#: A provider's label (model, finish reason) longer than this is not a label: dropped.
MAX_LABEL: Final = 128


def sized(data: bytes) -> dict[str, Any]:
    """A body as a secret run logs it: its size and sha256."""
    return {"body_bytes": len(data), "body_sha256": hashlib.sha256(data).hexdigest()}


def request_head(method: str, path: str) -> dict[str, Any]:
    """The request line, with what the method chose hashed unless the gateway knows it."""
    head: dict[str, Any] = {}
    for name, value, known in (("method", method, KNOWN_METHODS), ("path", path, KNOWN_PATHS)):
        if value in known:
            head[name] = value
        else:
            head[f"{name}_sha256"] = hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()
    return head


def forwarded_request(method: str, path: str, body: bytes, model: str) -> dict[str, Any]:
    """A forwarded request: the model is the allow-listed one the gateway checked."""
    return {**request_head(method, path), "model": model, **sized(body)}


def answer(status: int, data: bytes) -> dict[str, Any]:
    """An answer: status, size, sha256, and the numbers and labels a chat answer carries."""
    out: dict[str, Any] = {"status": status, **sized(data)}
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return out
    if not isinstance(parsed, dict):
        return out
    usage = parsed.get("usage")
    if isinstance(usage, dict):
        counts = {k: usage[k] for k in USAGE_FIELDS if _is_count(usage.get(k))}
        if counts:
            out["usage"] = counts
    if _is_label(model := parsed.get("model")):
        out["model"] = model
    choices = parsed.get("choices")
    if isinstance(choices, list):
        out["choices"] = len(choices)
        reasons = [c.get("finish_reason") for c in choices if isinstance(c, dict)]
        out["finish_reasons"] = [r if _is_label(r) else None for r in reasons]
    return out


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_label(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_LABEL and value.isprintable()
