"""Why a run of a sweep did not pass, in one line read from its log.

A sweep runs each combination as its own pytest process with its output in a log file; a
sweep that only said "exit 4" sent the user hunting through ``logs/``. The reason is the
log's own words: pytest's ``ERROR:`` line for a run that could not start, else its first
``FAILED`` line and its closing tally, and the log's path for the rest.
"""

from __future__ import annotations

import re
from pathlib import Path

_TALLY = re.compile(r"^=*\s*(\d+ (failed|passed|errors?|skipped|deselected)\b.*?)\s*=*$")
_MOST = 400


def log_reason(log: Path) -> str:
    """One line on why the run in ``log`` failed (the first line of a log is its command)."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    except OSError as exc:
        return f"its log {log} cannot be read ({exc.strerror})"
    lines = [line.strip() for line in lines if line.strip()]
    errors = [line for line in lines if line.startswith(("ERROR:", "ERROR "))]
    if errors:
        return f"{_cut(errors[0])} (log {log})"
    failed = next((line for line in lines if line.startswith("FAILED ")), None)
    tally = next((m.group(1) for line in reversed(lines) if (m := _TALLY.match(line))), None)
    said = "; ".join(part for part in (tally, failed and _cut(failed)) if part)
    if not said:
        said = " | ".join(_cut(line) for line in lines[-2:]) or "no output"
    return f"{said} (log {log})"


def _cut(line: str) -> str:
    return line if len(line) <= _MOST else line[: _MOST - 1] + "…"
