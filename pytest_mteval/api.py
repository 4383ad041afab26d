"""The Python API: ``evaluate(method, corpus, **options)`` runs the same pytest session as the
command line and returns its run card as the typed ``RunCard``.

The session runs as a subprocess: a notebook keeps its own stdout, signals and imports, and a
crashing method cannot take the kernel down. An interrupt is passed on: the card is still written.
"""

from __future__ import annotations

import difflib
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cards.runcard import read
from pytest_mteval.errors import MtevalError
from pytest_mteval.option_catalog import OPTIONS
from pytest_mteval.option_spec import OptionSpec

#: The ``--mteval-*`` options by their keyword form: ``batch_size`` is ``--mteval-batch-size``.
KEYWORDS: Final[Mapping[str, OptionSpec]] = {spec.name.replace("-", "_"): spec for spec in OPTIONS}
#: Set by ``evaluate`` itself, from its positional arguments.
POSITIONAL: Final = frozenset({"method", "corpus"})
#: How many lines of a failed session's output an error quotes.
QUOTED_LINES: Final = 20

OptionValue = str | int | float | bool | Path | Iterable[str | int | Path] | Mapping[str, object]


class EvaluateError(MtevalError):
    """A call to ``evaluate`` that cannot run or wrote no card; one line."""


@dataclass(frozen=True)
class Session:
    """A finished pytest session: its exit status and what it printed."""

    exit_code: int
    output: str


def option_arguments(options: Mapping[str, OptionValue]) -> list[str]:
    """The command-line arguments of keyword options; unknown names refused in one line."""
    arguments: list[str] = []
    for keyword, value in options.items():
        spec = KEYWORDS.get(keyword)
        if spec is None or keyword in POSITIONAL:
            raise EvaluateError(_unknown(keyword))
        arguments += _arguments_of(spec, keyword, value)
    return arguments


def _unknown(keyword: str) -> str:
    if keyword in POSITIONAL:
        return f"evaluate(): {keyword!r} is given as a positional argument, not an option"
    close = difflib.get_close_matches(keyword, [k for k in KEYWORDS if k not in POSITIONAL], 1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"evaluate(): unknown option {keyword!r}{hint} (options are the --mteval-* names "
        "with '_' for '-', listed in docs/options.md)"
    )


def _arguments_of(spec: OptionSpec, keyword: str, value: OptionValue) -> list[str]:
    if spec.kind == "flag":
        if not isinstance(value, bool):
            raise EvaluateError(f"evaluate(): option {keyword!r} is a flag: True or False")
        return [spec.flag] if value else []
    if spec.kind == "list":
        if isinstance(value, Mapping):  # method_arg={"predictions": path}
            items: list[object] = [f"{key}={item}" for key, item in value.items()]
        elif isinstance(value, str | int | float | Path):
            items = [value]
        elif isinstance(value, Iterable):
            items = list(value)
        else:
            raise EvaluateError(f"evaluate(): option {keyword!r} takes a value or a list")
        return [f"{spec.flag}={item}" for item in items]
    if isinstance(value, bool) or not isinstance(value, str | int | float | Path):
        raise EvaluateError(f"evaluate(): option {keyword!r} takes one value, not {value!r}")
    return [f"{spec.flag}={value}"]


def run_session(arguments: list[str], folder: Path) -> Session:
    """``python -m pytest`` with the plugin, rooted in ``folder`` (an empty ini, no user tests),
    run from the caller's directory so relative paths mean what they mean there."""
    ini = folder / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-c", str(ini), f"--rootdir={folder}", str(folder), *arguments]
    output = folder / "session-output.txt"
    with output.open("wb") as sink:
        child = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
        exit_code = _wait_forwarding_signals(child)
    return Session(exit_code, output.read_text(encoding="utf-8", errors="replace"))


def _wait_forwarding_signals(child: subprocess.Popen[bytes]) -> int:
    """Wait for the session; Ctrl-C (a notebook's interrupt too) and SIGTERM are passed on
    once each time, so the session stops as pytest does and still writes its card."""
    forwarding = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if forwarding else None
    if forwarding:
        signal.signal(signal.SIGTERM, lambda number, _frame: child.send_signal(number))
    try:
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                child.send_signal(signal.SIGINT)
    finally:
        if forwarding:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def card_of(session: Session, card: Path, before: int | None) -> RunCard:
    """The card the session wrote, read and verified; an error quoting the session when it
    wrote none (a card left from an earlier run, unchanged, is not this session's)."""
    if not card.is_file() or _modified(card) == before:
        lines = [line for line in session.output.splitlines() if line.strip()]
        reason = " | ".join(lines[-QUOTED_LINES:]) or "no output"
        raise EvaluateError(
            f"evaluate(): the session wrote no run card (exit {session.exit_code}): {reason}"
        )
    return read(card)


def _modified(path: Path) -> int | None:
    return path.stat().st_mtime_ns if path.is_file() else None


def evaluate(
    method: str | os.PathLike[str], corpus: str | os.PathLike[str], **options: OptionValue
) -> RunCard:
    """Run ``method`` on ``corpus`` as ``pytest --mteval-method ... --mteval-corpus ...`` would,
    and return the card it wrote. Options are the ``--mteval-*`` options as keywords:
    ``evaluate("identity", "shipped:eng-fra-flores-devtest", entry="1-5")``."""
    arguments = [f"--mteval-method={os.fspath(method)}", f"--mteval-corpus={os.fspath(corpus)}"]
    arguments += option_arguments(options)
    given = options.get("run_card")
    with tempfile.TemporaryDirectory(prefix="mteval-evaluate-") as scratch:
        folder = Path(scratch)
        if isinstance(given, str | os.PathLike):
            card = Path(given)
        else:
            card = folder / "card.json"
            arguments.append(f"--mteval-run-card={card}")
        before = _modified(card)
        return card_of(run_session(arguments, folder), card, before)
