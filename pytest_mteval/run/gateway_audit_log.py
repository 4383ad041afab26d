"""The gateway's audit log: JSON lines, each carrying the sha256 of the line before it.

Editing, removing or reordering a line breaks the chain at the next line; editing or
removing the last lines is caught against the head hash and line count that the run card
records (``mteval audit-log verify LOG --card CARD``). The chain proves the log is the one
the run sealed, not who ran it: sign the card for that.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The ``prev`` of the first line.
GENESIS = "0" * 64


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


class AuditLog:
    """Append-only writer; the file is created new (never over an existing one), mode 0600."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        self.head = GENESIS
        self.count = 0

    def append(self, record: dict[str, Any]) -> None:
        entry = {"seq": self.count, "prev": self.head, **record}
        line = json.dumps(entry, ensure_ascii=False, sort_keys=True)
        data = line.encode("utf-8", "backslashreplace")
        os.write(self._fd, data + b"\n")
        self.head = line_hash(data)
        self.count += 1

    def close(self) -> None:
        os.close(self._fd)


@dataclass
class Verified:
    lines: int = 0
    head: str = GENESIS
    problems: list[str] = field(default_factory=list)


def verify_log(path: Path, head: str | None = None, count: int | None = None) -> Verified:
    """Check the chain line by line and, when given, the head hash and line count."""
    out = Verified()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        out.problems.append(f"{path}: cannot read: {exc.strerror or exc}")
        return out
    for number, line in enumerate(raw.splitlines(), start=1):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
            out.problems.append(f"{path}: line {number}: not JSON")
            entry = {}
        if not isinstance(entry, dict):
            entry = {}
        if entry.get("seq") != number - 1:
            out.problems.append(
                f"{path}: line {number}: seq {entry.get('seq')!r}, expected {number - 1} "
                "(a line was removed, added or moved)"
            )
        if entry.get("prev") != out.head:
            out.problems.append(
                f"{path}: line {number}: 'prev' does not match the sha256 of line {number - 1} "
                "(that line was edited, or lines were removed or moved)"
            )
        out.head = line_hash(line)
        out.lines = number
    if count is not None and out.lines != count:
        out.problems.append(f"{path}: {out.lines} lines, the run card says {count}")
    if head is not None and out.head != head:
        out.problems.append(f"{path}: head sha256 {out.head} differs from the card's {head}")
    return out
