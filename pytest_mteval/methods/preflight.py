"""Preflight: a method checks its configuration once, before any item runs.

A missing key, an unset model, a missing file or an unreachable endpoint is one mistake, so it
gets one line and a usage-error exit, not one failure per entry and a card flagged
``many_errors`` for a run that never really started.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mteval.methods.loader import MethodLoadError
from pytest_mteval.methods.protocol import RunConfig, TranslationMethod


def run_preflight(method: TranslationMethod, config: RunConfig, name: str) -> None:
    """Call the method's optional ``preflight(config)``; any exception becomes one line."""
    check = getattr(method, "preflight", None)
    if callable(check):
        run_check(check, config, name)


def run_check(check: Callable[[RunConfig], object], config: RunConfig, name: str) -> None:
    """Run one preflight check; any exception becomes the one-line MethodLoadError."""
    try:
        check(config)
    except Exception as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise MethodLoadError(f"method {name!r} cannot start: {text}") from None
