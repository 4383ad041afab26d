"""A method folder's Python entry point (``module:Class``) imported from inside the folder and
built: what the harness does for ``--mteval-runner=inprocess`` and what a runner process does
with the entry point the harness read from the manifest.

Light on purpose: the runner process imports this, not the manifest's pydantic models, so it
boots in about half the time (0.1 s less of every sandboxed run's start). A ``module:Class``
names a file inside the folder, never something elsewhere on ``sys.path``, so a method cannot
silently run other code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from pytest_mteval.errors import ManifestError, MethodLoadError
from pytest_mteval.methods.harness_plugin import HarnessPluginMethod
from pytest_mteval.methods.protocol import TranslationMethod


def entry_point_file(folder: Path, entry: str, runtime: str = "python") -> Path:
    """The file an entry point names (a python module, a node file), checked to be inside
    ``folder``."""
    if runtime == "python":
        module_name = entry.partition(":")[0]
        file = folder.joinpath(*module_name.split(".")).with_suffix(".py")
    else:
        file = folder / entry
    where = f"{folder / 'method.json'}: entry point {entry!r} ({runtime})"
    if not file.resolve().is_relative_to(folder) or not file.is_file():
        raise ManifestError(f"{where}: {file.name} is not a module inside {folder}")
    return file


def import_entry_point(folder: Path, entry: str) -> type:
    """The class ``entry`` names, its module imported from its file in ``folder``."""
    module_name, _, class_name = entry.partition(":")
    file = entry_point_file(folder, entry)
    where = f"{folder / 'method.json'}: entry point {entry!r}"
    unique = "mteval_method_" + hashlib.sha256(str(file).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(unique, file)
    if spec is None or spec.loader is None:
        raise ManifestError(f"{where}: cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))  # the method's own helper modules
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise MethodLoadError(f"{file}: importing the method failed: {exc!r}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ManifestError(f"{where}: {module_name} has no class {class_name!r}")
    if not callable(getattr(cls, "translate", None)):
        raise ManifestError(f"{where}: {class_name} has no translate(entries, config) method")
    return cls


def build_instance(
    cls: type, folder: Path, entry: str, harness_shim: bool = False
) -> TranslationMethod:
    """``cls()``, wrapped in the reference harness's shim when its manifest asks for it; a
    failure names the manifest and entry point it was built from."""
    try:
        method = cls()
    except Exception as exc:
        where = f"{folder / 'method.json'}: entry point {entry!r}"
        raise MethodLoadError(f"{where}: building {cls.__name__}() failed: {exc!r}") from None
    return HarnessPluginMethod(method) if harness_shim else method
