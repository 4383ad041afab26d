"""pytest-mteval: evaluate machine-translation methods as pytest items."""

from typing import Any

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig, TranslationMethod

__all__ = ["MethodEntry", "MethodResult", "RunConfig", "TranslationMethod", "hookimpl"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``hookimpl``: the decorator for implementations of pytest-mteval's hooks (pytest's own
    marker), imported on first use so that a method's runner process never loads pytest."""
    if name == "hookimpl":
        import pytest

        return pytest.hookimpl
    raise AttributeError(f"module 'pytest_mteval' has no attribute {name!r}")
