"""pytest-mteval: evaluate machine-translation methods as pytest items."""

from pytest import hookimpl

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig, TranslationMethod

__all__ = ["MethodEntry", "MethodResult", "RunConfig", "TranslationMethod", "hookimpl"]
__version__ = "0.1.0"
