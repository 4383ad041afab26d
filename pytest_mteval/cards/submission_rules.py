"""What a method must carry to be submitted (benchmark spec §9.1): a README, its own licence,
a licence named for every dependency, and every dependency it ships actually shipped.

How "shipped" is checked follows the method interface spec's dependency fields, where
``source`` is the canonical origin (a URL, or a path for files made with the method):
- ``bundled``: the file is in the method folder, named by ``source`` when that is a relative
  path, else by a file name in ``notes`` (e.g. "eng-crk.tsv, see WORDLIST.md");
- ``mirrored``: vendored in the submission and pinned by content, ``pin`` = ``sha256:<hex>``
  of a file in the bundle (a commit or version pin cannot be checked offline);
- ``gateway`` and ``external-api``: services, nothing to ship.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from pytest_mteval.methods.manifest import Dependency, MethodManifest

README_NAMES: Final = ("README.md", "README.rst", "README.txt", "README")
LICENSE_NAMES: Final = ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")
_FILE_NAME: Final = re.compile(r"[\w.\-/]+\.\w+")


def file_sha256s(files: Iterable[Path]) -> set[str]:
    return {hashlib.sha256(path.read_bytes()).hexdigest() for path in files}


def method_problems(folder: Path, manifest: MethodManifest, shipped: set[str]) -> list[str]:
    """One line per thing the method folder lacks; ``shipped`` holds the sha256 of every file
    the bundle carries (method folder and vendored files)."""
    problems: list[str] = []
    if manifest.dependency_class == "X":
        problems.append(
            f"{folder / 'method.json'}: field 'dependency_class': class X methods are "
            "inadmissible in every track and never bundled (method interface)"
        )
    readme = next((folder / n for n in README_NAMES if (folder / n).is_file()), None)
    if readme is None or not readme.read_text(encoding="utf-8", errors="replace").strip():
        problems.append(f"{folder}: no README describing the approach and its limits (§9.1.5)")
    has_licence = any((folder / n).is_file() for n in LICENSE_NAMES)
    if not has_licence and not str((manifest.model_extra or {}).get("license") or "").strip():
        problems.append(
            f"{folder}: the method's own licence is not named (LICENSE file or 'license')"
        )
    where = folder / "method.json"
    for dep in manifest.dependencies:
        if not dep.license.strip():
            problems.append(f"{where}: dependency {dep.id!r}: no licence named")
        problem = _shipping_problem(folder, dep, shipped)
        if problem:
            problems.append(f"{where}: dependency {dep.id!r}: {problem}")
    return problems


def _shipping_problem(folder: Path, dep: Dependency, shipped: set[str]) -> str | None:
    if dep.access == "bundled":
        candidates = [dep.source, *_FILE_NAME.findall(dep.notes or "")]
        root = folder.resolve()
        for name in candidates:
            if "://" in name or ":" in name.split("/")[0]:
                continue
            target = (folder / name).resolve()
            if target.is_relative_to(root) and target.exists():
                return None
        return "bundled, but neither its source nor its notes name a file in the method folder"
    if dep.access == "mirrored":
        algorithm, _, digest = (dep.pin or "").partition(":")
        if algorithm != "sha256" or not re.fullmatch(r"[0-9a-f]{64}", digest):
            return f"mirrored with pin {dep.pin!r}: pin it as sha256:<hex> to vendor it"
        if digest not in shipped:
            return f"mirrored, but no file in the bundle has sha256 {digest[:12]}… (--include it)"
    return None
