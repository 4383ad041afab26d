"""Find a method by folder or by registered name, and build it.

A folder's entry point is imported from that folder only: ``module:Class`` names a file inside
it, never something elsewhere on ``sys.path``, so a method cannot silently run other code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.code_hash import code_record
from pytest_mteval.methods.harness_manifest import shim_note
from pytest_mteval.methods.harness_plugin import HarnessPluginMethod
from pytest_mteval.methods.manifest import ManifestError, MethodManifest, load_manifest
from pytest_mteval.methods.protocol import RunConfig, TranslationMethod

MethodFactory = Callable[[RunConfig], TranslationMethod]


class MethodLoadError(MtevalError):
    """A method that cannot be found or built; the message says which and why."""


@dataclass(frozen=True)
class MethodSource:
    """Where a method comes from, known before it is built (so workers can rebuild it)."""

    name: str
    directory: Path | None
    manifest: MethodManifest | None
    factory: MethodFactory
    #: The installed distribution that registered the method (an entry point), if any.
    distribution: str | None = None
    #: The hash of its code as found, before any of it ran (``code_hash.code_record``).
    code: dict[str, Any] | None = None
    #: The runtime its runner starts (``python``, ``node`` or ``command``) and its entry point.
    runtime: str = "python"
    entry_point: str | None = None

    @property
    def cache_name(self) -> str:
        """The name its cached translations are kept under: one per runtime, since two
        entry points are two programs."""
        return self.name if self.runtime == "python" else f"{self.name}@{self.runtime}"


@dataclass(frozen=True)
class PackagedFolder:
    """A method folder that an installed distribution registers (``NAME = package``)."""

    folder: Path
    distribution: str | None


#: What a name can be registered as: a factory, a method folder (with method.json), a folder
#: registered by a distribution, or a fully described source (an installed package's class
#: with its manifest).
Registered = MethodFactory | Path | PackagedFolder | MethodSource


def find_method(
    spec: str,
    base: Path,
    registered: Mapping[str, Registered],
    load: bool = True,
    runtime: str | None = None,
) -> MethodSource:
    """Resolve ``--mteval-method``: a folder with method.json, else a registered name.

    ``load=False`` checks a folder's entry point without importing it: the method's code then
    runs only in the runner process, never in the harness. ``runtime`` picks one of a folder's
    entry points (``--mteval-runtime``); None takes its method.json's ``runtime``."""
    folder = (base / spec).resolve()
    if (folder / "method.json").is_file():
        return load_folder(folder, load, runtime=runtime)
    if spec in registered:
        found = registered[spec]
        if isinstance(found, Path):
            return load_folder(found, load, runtime=runtime)
        if isinstance(found, PackagedFolder):
            return load_folder(found.folder, load, found.distribution, runtime)
        if runtime not in (None, "python"):
            raise MethodLoadError(
                f"--mteval-runtime={runtime}: {spec!r} is a registered Python method without "
                "other entry points"
            )
        if isinstance(found, MethodSource):
            if found.code is None:  # hashed when asked for: only the method that runs
                return replace(found, code=code_record(found.directory, found.distribution))
            return found
        return MethodSource(spec, None, None, found)
    if folder.is_dir():
        raise MethodLoadError(f"--mteval-method: {folder} has no method.json")
    known = ", ".join(sorted(registered)) or "none"
    raise MethodLoadError(
        f"--mteval-method: {spec!r} is neither a folder with method.json nor a registered "
        f"method name (registered: {known})"
    )


def load_folder(
    folder: Path, load: bool = True, distribution: str | None = None, runtime: str | None = None
) -> MethodSource:
    """A method folder: its manifest validated, its code hashed, then its entry point imported
    from inside it (or, with ``load=False``, only found: the runner process imports it)."""
    folder = folder.resolve()
    manifest = load_manifest(folder / "method.json")
    code = code_record(folder, distribution)  # before any of it is imported (and can rewrite it)
    name = manifest.method_id
    runtime = runtime or manifest.runtime_name
    entry = manifest.entry_for(runtime)
    if entry is None:
        ships = ", ".join([manifest.runtime_name, *manifest.entry_points])
        raise MethodLoadError(
            f"--mteval-runtime={runtime}: {folder / 'method.json'} has no entry point for "
            f"{runtime} (it ships: {ships})"
        )
    chosen = {"runtime": runtime, "entry_point": entry}
    if runtime != "python" and load:
        raise MethodLoadError(
            f"method {name!r} runs on {runtime}, in a runner process only: drop "
            "--mteval-runner=inprocess"
        )
    if not load:
        if runtime != "command":
            entry_point_file(folder, entry, runtime)
        return MethodSource(name, folder, manifest, _runs_elsewhere, distribution, code, **chosen)
    cls = _import_entry_point(folder, entry)
    factory: MethodFactory = lambda _config: _build(cls)  # noqa: E731
    if shim_note(manifest.model_extra):  # a reference-harness plugin, run through the shim
        factory = lambda _config: HarnessPluginMethod(_build(cls))  # noqa: E731
    return MethodSource(name, folder, manifest, factory, distribution, code, **chosen)


def _runs_elsewhere(_config: RunConfig) -> TranslationMethod:
    raise MethodLoadError("this method is built in its runner process, not in the harness")


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


def _import_entry_point(folder: Path, entry: str) -> type:
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


def _build(cls: type) -> TranslationMethod:
    try:
        method = cls()
    except Exception as exc:
        raise MethodLoadError(f"building {cls.__name__}() failed: {exc!r}") from None
    return method  # type: ignore[no-any-return]
