"""Submission bundles (benchmark spec §9.1): one tar.gz holding what a leaderboard needs to
trust and re-run a result, and the check a maintainer runs on one.

Layout: ``card.json`` (the sealed run card), ``method/`` (the method folder as is: code,
method.json, README, bundled dependencies such as coaching data, dictionaries, FST binaries,
prompts), ``vendor/`` (files given with ``--include``: mirrored dependencies such as an FST
binary pinned by sha256), ``cost-report.json`` (the card's totals and per-entry costs), and
``BUNDLE.json`` (every file with its size and sha256, the dependencies and their licences),
and ``inputs/arg-NAME/FILE``: the files path args handed the method (the card's
``method.code.inputs``, rule 2), which its code hash covers.
What the method must carry is in ``submission_rules``; how a bundle is checked, in
``bundle_check``. A bundle is made only of a card whose sealed code hash is the method
folder's now, and, given the corpus, only when no file holds its references.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.cards.bundle_check import (
    MAX_FILE_BYTES,
    MAX_TOTAL_BYTES,
    BundleError,
    card_matches_method,
    check_bundle,
    input_member,
)
from pytest_mteval.cards.bundle_leaks import CorpusReferences, file_leaks
from pytest_mteval.cards.submission_rules import file_sha256s, method_problems
from pytest_mteval.methods.code_hash import skipped
from pytest_mteval.methods.manifest import ManifestError, load_manifest

__all__ = ["BundleError", "check_bundle", "cost_report", "make_bundle"]

FORMAT: Final = "pytest-mteval-bundle/1"


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
    method_folder: Path,
    card_path: Path,
    out: Path,
    include: Sequence[Path] = (),
    corpus: CorpusReferences | None = None,
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
    vendored.update(_inputs(card, problems))
    problems += method_problems(folder, manifest, file_sha256s([*files, *vendored.values()]))
    problems += card_matches_method(card, manifest, card_path, folder)
    if corpus is not None:
        problems += file_leaks([*files, *vendored.values()], corpus)
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


def _method_files(folder: Path, problems: list[str]) -> list[Path]:
    files: list[Path] = []
    total = 0
    for path in sorted(folder.rglob("*")):
        if skipped(PurePosixPath(path.relative_to(folder).as_posix())):
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


def _inputs(card: Mapping[str, Any], problems: list[str]) -> dict[str, Path]:
    """The path-arg files the card's code hash covers, under their bundle names; a folder
    given as a path arg is not bundled (a problem: copy its files into the method)."""
    code = (card.get("method") or {}).get("code")
    listed = code.get("inputs") if isinstance(code, dict) else None
    out: dict[str, Path] = {}
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict) or item.get("role") == "interpreter":
            continue
        path = Path(str(item.get("path")))
        name = input_member(str(item.get("role")), str(path))
        if name is None or not path.is_file():
            problems.append(f"{path}: method.code.inputs names no file a bundle can carry")
        else:
            out[name] = path
    return out


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
