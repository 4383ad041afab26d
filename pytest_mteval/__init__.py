"""pytest-mteval: evaluate machine-translation methods as pytest items."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig, TranslationMethod

if TYPE_CHECKING:
    from pytest_mteval.api import evaluate

__all__ = [
    "MethodEntry",
    "MethodResult",
    "RunConfig",
    "TranslationMethod",
    "evaluate",
    "hookimpl",
]
__version__ = "0.1.0"

#: Decorator for implementations of pytest-mteval's hooks: they are pytest hooks, so pytest's
#: marker, made here without importing pytest into the public API.
hookimpl = pluggy.HookimplMarker("pytest")


def __getattr__(name: str) -> Any:
    """``evaluate`` is loaded on first use: importing the package (every method and the
    plugin's entry point do) must not load the cards and the API's floor."""
    if name == "evaluate":
        from pytest_mteval.api import evaluate as loaded

        return loaded
    raise AttributeError(f"module 'pytest_mteval' has no attribute {name!r}")
