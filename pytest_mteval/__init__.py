"""pytest-mteval: evaluate machine-translation methods as pytest items."""

import pluggy

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig, TranslationMethod

__all__ = ["MethodEntry", "MethodResult", "RunConfig", "TranslationMethod", "hookimpl"]
__version__ = "0.1.0"

#: Decorator for implementations of pytest-mteval's hooks: they are pytest hooks, so pytest's
#: marker, made here without importing pytest into the public API.
hookimpl = pluggy.HookimplMarker("pytest")
