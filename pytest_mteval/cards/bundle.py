"""Submission bundles (benchmark spec §9.1): one tar.gz holding what a leaderboard needs to
trust and re-run a result, and the check a maintainer runs on one.

Layout: ``card.json`` (the sealed run card), ``method/`` (the method folder as is: code,
method.json, README, bundled dependencies such as coaching data, dictionaries, FST binaries,
prompts), ``vendor/`` (files given with ``--include``: mirrored dependencies such as an FST
binary pinned by sha256), ``cost-report.json`` (the card's totals and per-entry costs), and
``BUNDLE.json`` (every file with its size and sha256, the dependencies and their licences).
What the method must carry is in ``submission_rules``.

A bundle comes from a stranger: ``check`` reads members without trusting their names (no
absolute paths, no ``..``, no links or devices, sizes bounded) before anything is extracted,
and extracts with tarfile's ``data`` filter into a private temporary folder.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.cards.submission_rules import file_sha256s, method_problems
from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.manifest import ManifestError, MethodManifest, load_manifest

FORMAT: Final = "pytest-mteval-bundle/1"
MAX_FILE_BYTES: Final = 64 * 1024 * 1024
MAX_TOTAL_BYTES: Final = 256 * 1024 * 1024
_SKIPPED: Final = frozenset({"__pycache__", ".mteval", ".pytest_cache"})


class BundleError(MtevalError):
    """A bundle that cannot be made; the message is one line naming the file."""


def cost_report(card: Mapping[str, Any]) -> dict[str, Any]:
    """The card's cost figures in one document (§9.1.4)."""
    rows = card.get("results") or []
    costs = [r.get("cost_usd") for r in rows]
    return {
        "run_card_hash": card["run_card_hash"],
        "model_slug": card["model_slug"],
        "entries": len(rows),
        "entries_with_cost": sum(1 for c in costs if c is not None),
        "totals": card.get("totals") or {},
        "per_entry_cost_usd": {str(r.get("entry_id")): r.get("cost_usd") for r in rows},
    }


def make_bundle(
    method_folder: Path, card_path: Path, out: Path, include: Sequence[Path] = ()
) -> Path:
    """Pack a verified card with the method that made it, and ``include`` (vendored files,
    e.g. a mirrored FST binary) under ``vendor/``; refuse with every problem found."""
    folder = method_folder.resolve()
    try:
        manifest = load_manifest(folder / "method.json")
        card = runcard.load(card_path)
        runcard.verify(card, card_path)
    except (ManifestError, runcard.RunCardError) as exc:
        raise BundleError(str(exc)) from None
    problems: list[str] = []
    files = _method_files(folder, problems)
    vendored = _vendored(include, problems)
    problems += method_problems(folder, manifest, file_sha256s([*files, *vendored.values()]))
    problems += _card_matches_method(card, manifest, card_path)
    if problems:
        raise BundleError("; ".join(problems))
    members: dict[str, bytes] = {"card.json": card_path.read_bytes()}
    members["cost-report.json"] = _json(cost_report(card))
    for path in files:
        members["method/" + path.relative_to(folder).as_posix()] = path.read_bytes()
    for name, path in vendored.items():
        members[name] = path.read_bytes()
    index = {
        "format": FORMAT,
        "method_id": manifest.method_id,
        "run_card_hash": card["run_card_hash"],
        "fingerprint": card["fingerprint"],
        "dependencies": [d.model_dump() for d in manifest.dependencies],
        "files": {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in sorted(members.items())
        },
    }
    members["BUNDLE.json"] = _json(index)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in sorted(members.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return out


def check_bundle(bundle: Path) -> list[str]:
    """Every problem of a bundle, one line each naming the member; empty when it is valid."""
    try:
        with (
            tarfile.open(bundle, "r:gz") as tar,
            tempfile.TemporaryDirectory(prefix="mteval-bundle-") as tmp,
        ):
            problems = _member_problems(bundle, tar)
            if problems:
                return problems
            tar.extractall(tmp, filter="data")
            found = _content_problems(bundle, Path(tmp))
            return [line.replace(tmp, f"{bundle}:") for line in found]
    except (OSError, EOFError, tarfile.TarError) as exc:
        return [f"{bundle}: not a readable tar.gz: {exc}"]


def _member_problems(bundle: Path, tar: tarfile.TarFile) -> list[str]:
    problems: list[str] = []
    total = 0
    for member in tar.getmembers():
        name = PurePosixPath(member.name)
        where = f"{bundle}: member {member.name!r}"
        if name.is_absolute() or ".." in name.parts:
            problems.append(f"{where}: path leaves the bundle")
        elif not (member.isfile() or member.isdir()):
            problems.append(f"{where}: links and devices are not allowed")
        elif member.size > MAX_FILE_BYTES:
            problems.append(f"{where}: {member.size} bytes, over the {MAX_FILE_BYTES} limit")
        total += max(member.size, 0)
    if total > MAX_TOTAL_BYTES:
        problems.append(f"{bundle}: {total} bytes in all, over the {MAX_TOTAL_BYTES} limit")
    return problems


def _content_problems(bundle: Path, root: Path) -> list[str]:
    index_path = root / "BUNDLE.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
        listed: Mapping[str, Any] = index["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"{index_path}: missing or invalid: {exc}"]
    problems: list[str] = []
    present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {
        "BUNDLE.json"
    }
    for name in sorted(present - set(listed)):
        problems.append(f"{root / name}: not listed in BUNDLE.json")
    for name, meta in sorted(listed.items()):
        path = root / name
        if name not in present:
            problems.append(f"{path}: listed in BUNDLE.json but missing")
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != meta.get("sha256") or len(data) != meta.get("size"):
            problems.append(f"{path}: size or sha256 differs from BUNDLE.json")
    card_path = root / "card.json"
    try:
        card = runcard.load(card_path)
        runcard.verify(card, card_path)
    except runcard.RunCardError as exc:
        return [*problems, str(exc)]
    try:
        manifest = load_manifest(root / "method" / "method.json")
    except ManifestError as exc:
        return [*problems, str(exc)]
    shipped = file_sha256s(p for p in root.rglob("*") if p.is_file())
    problems += method_problems(root / "method", manifest, shipped)
    problems += _card_matches_method(card, manifest, card_path)
    if index.get("run_card_hash") != card["run_card_hash"]:
        problems.append(f"{index_path}: run_card_hash does not name card.json")
    try:
        report = json.loads((root / "cost-report.json").read_text(encoding="utf-8"))
        if report.get("totals") != card.get("totals"):
            problems.append(f"{root / 'cost-report.json'}: totals differ from the card's")
    except (OSError, ValueError) as exc:
        problems.append(f"{root / 'cost-report.json'}: missing or invalid: {exc}")
    return problems


def _card_matches_method(
    card: Mapping[str, Any], manifest: MethodManifest, card_path: Path
) -> list[str]:
    recorded = (card.get("method") or {}).get("manifest")
    if recorded != manifest.model_dump(by_alias=True):
        return [f"{card_path}: the card was not made by this method (method.manifest differs)"]
    return []


def _method_files(folder: Path, problems: list[str]) -> list[Path]:
    files: list[Path] = []
    total = 0
    for path in sorted(folder.rglob("*")):
        if _SKIPPED & set(path.relative_to(folder).parts):
            continue
        if path.is_symlink():
            problems.append(f"{path}: symbolic links are not bundled; copy the file in")
        elif path.is_file():
            size = path.stat().st_size
            total += size
            if size > MAX_FILE_BYTES:
                problems.append(f"{path}: {size} bytes, over the {MAX_FILE_BYTES} limit")
            files.append(path)
    if total > MAX_TOTAL_BYTES:
        problems.append(f"{folder}: {total} bytes in all, over the {MAX_TOTAL_BYTES} limit")
    return files


def _vendored(include: Sequence[Path], problems: list[str]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in include:
        name = f"vendor/{path.name}"
        if not path.is_file() or path.is_symlink():
            problems.append(f"{path}: --include needs a regular file")
        elif name in out:
            problems.append(f"{path}: another included file is also named {path.name}")
        elif path.stat().st_size > MAX_FILE_BYTES:
            problems.append(f"{path}: over the {MAX_FILE_BYTES} bytes limit")
        else:
            out[name] = path
    return out


def _json(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
