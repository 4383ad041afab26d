"""pytest-mteval: evaluate machine-translation methods as pytest items."""

import pytest

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig, TranslationMethod

__all__ = ["MethodEntry", "MethodResult", "RunConfig", "TranslationMethod", "hookimpl"]
__version__ = "0.1.0"

#: Decorator for implementations of pytest-mteval's hooks (pytest's own marker).
hookimpl = pytest.hookimpl
