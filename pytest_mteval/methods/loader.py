"""Find a method by folder or by registered name, and build it (a folder's entry point:
``methods/entry_point.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_mteval.errors import MethodLoadError as MethodLoadError
from pytest_mteval.methods.async_check import refuse_plain_translate
from pytest_mteval.methods.card_checks import contradiction
from pytest_mteval.methods.code_hash import code_record
from pytest_mteval.methods.entry_point import build_instance, entry_point_file, import_entry_point
from pytest_mteval.methods.harness_manifest import shim_note
from pytest_mteval.methods.manifest import (
    ManifestError,
    MethodCard,
    MethodManifest,
    load_manifest,
    load_method_card,
)
from pytest_mteval.methods.protocol import RunConfig, TranslationMethod

MethodFactory = Callable[[RunConfig], TranslationMethod]
#: The method card a method folder ships beside its method.json (method interface spec).
METHOD_CARD_FILE = "method_card.json"


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
    if runtime == "python":  # refused now, in one line, not at every batch's await
        refuse_plain_translate(entry_point_file(folder, entry), entry.partition(":")[2])
    if not load:
        if runtime != "command":
            entry_point_file(folder, entry, runtime)
        return MethodSource(name, folder, manifest, _runs_elsewhere, distribution, code, **chosen)
    cls = import_entry_point(folder, entry)
    shim = bool(shim_note(manifest.model_extra))  # a reference-harness plugin, run through it
    factory: MethodFactory = lambda _config: build_instance(cls, folder, entry, shim)  # noqa: E731
    return MethodSource(name, folder, manifest, factory, distribution, code, **chosen)


def method_card_for(
    source: MethodSource, given: Path | None = None, model: str | None = None
) -> MethodCard | None:
    """The method card the run embeds: ``given`` (``--mteval-method-card``), else the
    folder's own ``method_card.json``; refused in one line where it contradicts method.json
    (or the run's ``--mteval-model``)."""
    own = source.directory / METHOD_CARD_FILE if source.directory is not None else None
    path = given or (own if own is not None and own.is_file() else None)
    if path is None:
        return None
    card = load_method_card(path)
    stated = card.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)
    if source.manifest is not None:
        found = contradiction(stated, source.manifest.model_dump(by_alias=True))
        if found is not None:
            where = source.directory / "method.json" if source.directory else None
            manifest_file = str(where) if where else f"the method.json of {source.name!r}"
            raise ManifestError(found.message(str(path), manifest_file))
    claimed = stated.get("model")
    if model is not None and claimed is not None and claimed != model:
        raise ManifestError(
            f"{path}: field 'model' is {claimed!r} but the run's --mteval-model is {model!r}: "
            "a method card describes its run, it cannot contradict it"
        )
    return card


def _runs_elsewhere(_config: RunConfig) -> TranslationMethod:
    raise MethodLoadError("this method is built in its runner process, not in the harness")
