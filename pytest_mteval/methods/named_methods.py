"""Methods known by name: the ones shipped inside this package, and the ones other installed
packages register through the entry-point group ``pytest_mteval.methods``.

So ``pip install some-method-package`` is all it takes to make ``--mteval-method=NAME`` work,
in any repository, with no folder to copy. An entry point is either ``NAME = "package"`` (a
package folder holding ``method.json``, loaded like any method folder) or ``NAME =
"module:Class"`` (imported normally, so relative imports work; a ``method.json`` beside the
module, if there is one, is validated and goes on the run card). A broken entry point only
fails the run that asks for it, with one line naming the entry point.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from pytest_mteval.methods.loader import MethodLoadError, MethodSource, PackagedFolder, Registered
from pytest_mteval.methods.manifest import ManifestError, MethodManifest, load_manifest
from pytest_mteval.methods.protocol import RunConfig, TranslationMethod

ENTRY_POINT_GROUP = "pytest_mteval.methods"
SHIPPED = Path(__file__).resolve().parent / "shipped"


@dataclass(frozen=True)
class Listing:
    """One registered name, for ``mteval methods``."""

    name: str
    origin: str
    manifest: MethodManifest | None
    problem: str | None = None


def shipped_methods() -> dict[str, Path]:
    """method_id -> folder of every method shipped with pytest-mteval."""
    found: dict[str, Path] = {}
    for manifest_path in sorted(SHIPPED.glob("*/method.json")):
        found[load_manifest(manifest_path).method_id] = manifest_path.parent
    return found


def installed_methods() -> dict[str, Registered]:
    """Every method installed by name: shipped ones first, then entry points.

    A third-party name equal to a shipped one is refused rather than silently shadowing it.
    """
    registered: dict[str, Registered] = dict(shipped_methods())
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in registered:
            registered[ep.name] = _broken(
                f"entry point {ep.name} = {ep.value!r} ({_dist(ep)}) reuses the name of "
                "another installed method; rename it"
            )
            continue
        try:
            registered[ep.name] = _resolve(ep)
        except (MethodLoadError, ManifestError) as exc:
            registered[ep.name] = _broken(str(exc))
    return registered


def listings() -> list[Listing]:
    """What ``mteval methods`` prints: every installed name, where it comes from, and its
    manifest (or why it cannot be loaded)."""
    rows = [
        Listing(name, f"shipped {folder}", load_manifest(folder / "method.json"))
        for name, folder in shipped_methods().items()
    ]
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        origin = f"entry point {ep.value} ({_dist(ep)})"
        try:
            found = _resolve(ep)
        except (MethodLoadError, ManifestError) as exc:
            rows.append(Listing(ep.name, origin, None, str(exc)))
            continue
        manifest = (
            load_manifest(found.folder / "method.json")
            if isinstance(found, PackagedFolder)
            else found.manifest
        )
        problem = "name already taken" if any(r.name == ep.name for r in rows) else None
        rows.append(Listing(ep.name, origin, manifest, problem))
    return rows


def _resolve(ep: EntryPoint) -> PackagedFolder | MethodSource:
    where = f"entry point {ep.name} = {ep.value!r} ({_dist(ep)})"
    distribution = ep.dist.name if ep.dist is not None else None
    if ep.attr is None:
        folder = _module_folder(ep.module, where)
        if not (folder / "method.json").is_file():
            raise MethodLoadError(f"{where}: package folder {folder} has no method.json")
        return PackagedFolder(folder, distribution)
    try:
        cls = ep.load()
    except Exception as exc:
        raise MethodLoadError(f"{where}: import failed: {exc!r}") from None
    if not callable(getattr(cls, "translate", None)):
        raise MethodLoadError(f"{where}: {ep.attr} has no translate(entries, config) method")
    folder = _module_folder(ep.module, where)
    manifest = load_manifest(folder / "method.json") if (folder / "method.json").is_file() else None
    factory = _factory(cls, where)
    factory.mteval_entry_point = ep.value  # type: ignore[attr-defined]  # for runner processes
    return MethodSource(ep.name, folder if manifest else None, manifest, factory, distribution)


def _module_folder(module: str, where: str) -> Path:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as exc:
        raise MethodLoadError(f"{where}: cannot find module {module}: {exc}") from None
    if spec is None or spec.origin is None:
        raise MethodLoadError(f"{where}: cannot find module {module}")
    return Path(spec.origin).resolve().parent


def _factory(cls: Callable[[], TranslationMethod], where: str) -> Callable[..., TranslationMethod]:
    def build(_config: RunConfig) -> TranslationMethod:
        try:
            return cls()
        except Exception as exc:
            raise MethodLoadError(f"{where}: building the method failed: {exc!r}") from None

    return build


def _broken(message: str) -> Callable[[RunConfig], TranslationMethod]:
    def fail(_config: RunConfig) -> TranslationMethod:
        raise MethodLoadError(message)

    return fail


def _dist(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
