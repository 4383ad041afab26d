"""The runner protocol: JSON lines over the runner process's stdin and stdout. It is a public,
versioned interface (docs/runner-protocol.md): any executable that speaks it is a runner.

Each message is one JSON object on one line (UTF-8, ``\\n``-terminated), with a ``type``:

runner -> harness, first
    ``{"type": "hello", "protocol": 1, "runtime": str}``: the version it speaks. The harness
    sends nothing before it, and refuses a runner that speaks another version.

harness -> runner
    ``{"type": "start", "method": MethodRef, "config": RunConfig}``: build the method (import
    its code, construct it, call ``prepare(config)``). Sent once, first.
    ``{"type": "translate", "ticket": int, "entries": [MethodEntry, ...]}``: translate one
    batch. Several tickets may be in flight; replies come in any order.
    ``{"type": "stop"}``: exit. End of input means the same: the harness is gone.

runner -> harness
    ``{"type": "ready", "describe": MethodDescription}``: the method is built.
    ``{"type": "fatal", "error": str}``: the method cannot be built; the runner exits.
    ``{"type": "result", "ticket": int, "results": [...]}``: the method's results, unchecked
    (the harness checks them against the batch, as it does in process).
    ``{"type": "error", "ticket": int, "error": str}``: the batch failed as a whole.
    A reply to a ticket the harness did not send, or sent and had answered, is dropped.

Only source-side fields of entries travel (``SOURCE_SIDE_FIELDS``), and the runner's command
line names no corpus: what the harness knows is not in the runner's memory.
"""

from __future__ import annotations

import json
from typing import IO, Any

#: The version of the protocol this harness speaks; a change that an old runner would misread
#: gets a new number.
PROTOCOL_VERSION = 1
#: A runner that sends a longer line is broken or hostile; the harness stops reading it.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: The harness keeps this much of a runner's stderr line and drops the rest unread into memory.
MAX_STDERR_LINE_BYTES = 4096


class ProtocolError(Exception):
    """A line that is not one JSON object of a known type."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line; ASCII-escaped so lone surrogates survive the pipe."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {str(exc)[:200]}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("not a message object with a 'type'")
    return message


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at end of input."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes")
    return decode(line)


def hello_problem(hello: dict[str, Any] | None) -> str | None:
    """Why a runner's first message does not let the run go on, or None."""
    if hello is None or hello.get("type") != "hello":
        said = "nothing" if hello is None else f"a {hello.get('type')!r} message"
        return (
            f"its runner sent {said} before announcing its protocol version (a 'hello' line); "
            f"this harness speaks runner protocol {PROTOCOL_VERSION} (docs/runner-protocol.md)"
        )
    version = hello.get("protocol")
    if version != PROTOCOL_VERSION or isinstance(version, bool):
        return (
            f"its runner speaks runner protocol {str(version)[:40]}, this harness speaks "
            f"{PROTOCOL_VERSION}: use a runner and a pytest-mteval of the same protocol "
            "(docs/runner-protocol.md)"
        )
    return None
