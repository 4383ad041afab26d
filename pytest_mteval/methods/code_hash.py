"""The hash of a method's code as it ran, for the run card (``method.code``) and for
``mteval bundle check``, which recomputes it over the bundled method folder.

Rule ``pytest-mteval-code/1``, chosen so that anyone can recompute it with coreutils: list
every file as ``sha256sum`` does (the file's sha256 in hex, two spaces, its path relative to
the folder with ``/`` separators, a newline), sorted by the bytes of the path, and take the
sha256 of that listing. Left out: ``__pycache__`` folders (what Python writes on import; a
``.pyc`` elsewhere is importable code and counts), and the harness's own ``.mteval`` and
``.pytest_cache`` folders, which a bundle never carries either. Symbolic links to files count
with the content they lead to (that is what an import reads); links to folders are not
followed. For a folder without links::

    cd METHOD && find . -type f ! -path '*/__pycache__/*' \\
      ! -path '*/.mteval/*' ! -path '*/.pytest_cache/*' -printf '%P\\0' \\
      | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum

A method named by an installed package also gets the same listing over its distribution's
files (``importlib.metadata``'s ``files``, as its RECORD lists them), leaving out
``__pycache__``, files outside the install folder (scripts, whose first line names the local
Python) and the installer's bookkeeping (RECORD, INSTALLER, REQUESTED, direct_url.json), so
two installs of one wheel hash alike.

Rule ``pytest-mteval-code/2`` adds what the harness starts or hands the method from outside
the folder: a command runtime's interpreter (``interpreter``) and each file or folder named by
a ``path`` method arg (``arg:NAME``). Its hash is the sha256 of a listing in the same form: the
folder's rule-1 hash named ``.``, then each input's sha256 (a folder's: its rule-1 hash) named
``@ROLE``, sorted by role. A run without such inputs keeps rule 1 and its hash, so the cards
already issued keep theirs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any, Final

from pytest_mteval.errors import MtevalError

RULE: Final = "pytest-mteval-code/1"
#: The rule of a run handed code from outside its folder (an interpreter, path args).
RULE_WITH_INPUTS: Final = "pytest-mteval-code/2"
#: Folders never hashed (nor bundled): Python's byte code and the harness's own output.
SKIPPED_FOLDERS: Final = frozenset({"__pycache__", ".mteval", ".pytest_cache"})
#: What an installer writes about an install, not what the wheel holds.
_BOOKKEEPING: Final = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
_CHUNK: Final = 1 << 20


class CodeHashError(MtevalError):
    """A method's code that cannot be read for hashing; the message names the file."""


def skipped(relative: PurePosixPath) -> bool:
    """Whether the rule leaves this path (relative to the folder) out; the bundle leaves out
    the same paths, so a bundled folder hashes as the folder did."""
    return bool(SKIPPED_FOLDERS & set(relative.parts))


def folder_files(folder: Path) -> list[tuple[str, Path]]:
    """(relative path, file) of every file the rule hashes, in the rule's order."""
    found: list[tuple[str, Path]] = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS]
        for name in names:
            path = Path(top, name)
            relative = PurePosixPath(path.relative_to(folder).as_posix())
            if not skipped(relative) and path.is_file():  # a link to a file counts, as it reads
                found.append((str(relative), path))
    return sorted(found, key=lambda item: item[0].encode("utf-8", "surrogateescape"))


def listing_hash(files: Iterable[tuple[str, Path]]) -> dict[str, Any]:
    """sha256 of the ``sha256sum`` listing of ``files`` (already in order), with the count
    and total size; CodeHashError naming a file that cannot be read."""
    listing = hashlib.sha256()
    count = size = 0
    for name, path in files:
        digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
        except OSError as exc:
            raise CodeHashError(
                f"{path}: cannot read the method's code to hash it: {exc}"
            ) from None
        listing.update(f"{digest.hexdigest()}  {name}\n".encode("utf-8", "surrogateescape"))
        count += 1
    return {"sha256": listing.hexdigest(), "files": count, "bytes": size}


def folder_hash(folder: Path) -> dict[str, Any]:
    """The rule over a folder: ``{"sha256", "files", "bytes"}``."""
    return listing_hash(folder_files(folder))


def distribution_hash(name: str) -> dict[str, Any] | None:
    """The rule over an installed distribution's files, or None when it is not installed or
    lists no files (an install without RECORD)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    listed = dist.files
    if listed is None:
        return None
    kept: list[tuple[str, Path]] = []
    missing = 0
    for item in listed:
        relative = PurePosixPath(item.as_posix())
        if ".." in relative.parts or relative.is_absolute() or skipped(relative):
            continue
        if relative.parent.name.endswith(".dist-info") and relative.name in _BOOKKEEPING:
            continue
        path = Path(str(item.locate()))
        if not path.is_file():
            missing += 1
            continue
        kept.append((str(relative), path))
    kept.sort(key=lambda entry: entry[0].encode("utf-8", "surrogateescape"))
    found = listing_hash(kept)
    named, version = dist.metadata["Name"] or name, dist.version or ""  # either may be absent
    return {"name": str(named), "version": str(version), **found, "missing": missing}


def input_sha256(path: Path) -> str:
    """A file's sha256, or a folder's rule-1 hash; CodeHashError when it cannot be read."""
    if path.is_dir():
        return str(folder_hash(path)["sha256"])
    return _file_sha256(path)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise CodeHashError(f"{path}: cannot read it to hash it: {exc}") from None
    return digest.hexdigest()


def combined_sha256(folder_sha256: str | None, inputs: Iterable[tuple[str, str]]) -> str:
    """Rule 2's hash: the folder's hash named ``.``, then each (role, sha256) as ``@ROLE``."""
    listing = hashlib.sha256(f"{folder_sha256 or '-'}  .\n".encode())
    for role, digest in sorted(inputs):
        listing.update(f"{digest}  @{role}\n".encode("utf-8", "surrogateescape"))
    return listing.hexdigest()


def with_inputs(record: dict[str, Any], inputs: Iterable[tuple[str, Path]]) -> dict[str, Any]:
    """``record`` (rule 1) extended to rule 2 by ``inputs`` (role, path); unchanged without."""
    found = [
        {"role": role, "path": str(path), "sha256": input_sha256(path),
         "kind": "folder" if path.is_dir() else "file"}
        for role, path in sorted(inputs)
    ]  # fmt: skip
    if not found:
        return record
    folder_sha = record.get("sha256")
    combined = combined_sha256(folder_sha, [(i["role"], i["sha256"]) for i in found])
    extended = {**record, "rule": RULE_WITH_INPUTS, "sha256": combined}
    return {**extended, "folder_sha256": folder_sha, "inputs": found}


def recorded_inputs(record: Any) -> list[tuple[str, str]]:
    """The (role, sha256) inputs a card's ``method.code`` names (none for rule 1)."""
    inputs = record.get("inputs") if isinstance(record, dict) else None
    if not isinstance(inputs, list):
        return []
    return [
        (str(item.get("role")), str(item.get("sha256")))
        for item in inputs
        if isinstance(item, dict)
    ]


def code_record(folder: Path | None, distribution: str | None = None) -> dict[str, Any] | None:
    """The card's ``method.code``: the folder's hash (null without a folder) and, for a method
    named by an installed package, its distribution's; None when there is neither."""
    if folder is None and distribution is None:
        return None
    found = folder_hash(folder) if folder is not None else {"sha256": None, "files": 0, "bytes": 0}
    record: dict[str, Any] = {"rule": RULE, **found}
    if distribution is not None:
        record["distribution"] = distribution_hash(distribution)
    return record
