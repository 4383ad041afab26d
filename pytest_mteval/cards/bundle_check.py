"""``mteval bundle check``: what a maintainer runs on a bundle from a stranger.

Members are read without trusting their names (no absolute paths, no ``..``, no links or
devices, sizes bounded) before anything is extracted, with tarfile's ``data`` filter into a
private temporary folder. Then every file is checked against BUNDLE.json (read with the
bounded JSON reader, its shape checked), the card verified, the bundled method folder's code
hash recomputed and compared with the one the card sealed (``methods/code_hash.py``), and,
given the corpus, every file searched for its references (``bundle_leaks.py``).

A card of rule 2 was also handed files from outside its folder (path args): the bundle carries
them under ``inputs/`` and they join the recomputed hash. A command's interpreter is a system
program the bundle does not carry: it enters the hash by the sha256 the card records.
"""

from __future__ import annotations

import hashlib
import re
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from pytest_mteval.cards import runcard
from pytest_mteval.cards.bundle_leaks import CorpusReferences, leak_problems
from pytest_mteval.cards.data_overlap import overlap
from pytest_mteval.cards.signing import SigningError, verify_signature
from pytest_mteval.cards.submission_rules import file_sha256s, method_problems
from pytest_mteval.corpus import Corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.methods.code_hash import (
    RULE_WITH_INPUTS,
    CodeHashError,
    combined_sha256,
    folder_hash,
    input_sha256,
)
from pytest_mteval.methods.manifest import ManifestError, MethodManifest, load_manifest

MAX_FILE_BYTES: Final = 64 * 1024 * 1024
MAX_TOTAL_BYTES: Final = 256 * 1024 * 1024
_SHA256: Final = re.compile(r"[0-9a-f]{64}")
#: The roles of a card's code inputs a bundle carries (``arg:NAME``), as safe member names.
_ARG_ROLE: Final = re.compile(r"arg:([A-Za-z0-9_.-]{1,100})")
_PLAIN_NAME: Final = re.compile(r"[^/\\\x00]{1,255}")


class BundleError(MtevalError):
    """A bundle that cannot be made or read; the message is one line naming the file."""


def check_bundle(
    bundle: Path,
    corpus: CorpusReferences | None = None,
    public_key: Ed25519PublicKey | None = None,
    overlaps: list[dict[str, Any]] | None = None,
) -> list[str]:
    """Every problem of a bundle, one line each naming the member; empty when it is valid.

    An unsigned card can be rewritten and sealed again by anyone, code hash included: only a
    card signed by a harness the checker trusts (``public_key``) ties the bundled code to the
    run that made the scores. Given ``overlaps`` and the corpus, the overlap report of the
    bundled method's data with the corpus is appended to it (``data_overlap.py``)."""
    try:
        with (
            tarfile.open(bundle, "r:gz") as tar,
            tempfile.TemporaryDirectory(prefix="mteval-bundle-") as tmp,
        ):
            problems = _member_problems(bundle, tar)
            if problems:
                return problems
            tar.extractall(tmp, filter="data")
            found = _content_problems(Path(tmp), public_key)
            if corpus is not None:
                found += leak_problems(Path(tmp), corpus)
                if overlaps is not None and corpus.loaded is not None:
                    overlaps.append(_overlap(Path(tmp) / "method", corpus.loaded))
            return [line.replace(tmp, f"{bundle}:") for line in found]
    except (OSError, EOFError, tarfile.TarError) as exc:
        return [f"{bundle}: not a readable tar.gz: {exc}"]


def _overlap(folder: Path, corpus: Corpus) -> dict[str, Any]:
    try:
        manifest: MethodManifest | None = load_manifest(folder / "method.json")
    except ManifestError:
        manifest = None  # already a problem of the bundle
    return overlap(folder, corpus, manifest)


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


def read_index(path: Path) -> tuple[dict[str, Any], dict[str, tuple[int, str]]]:
    """BUNDLE.json and its file table (name -> (size, sha256)); BundleError naming the field
    of the first thing of the wrong type or shape."""
    index = read_json(path, "bundle index", BundleError)
    if not isinstance(index, dict):
        raise BundleError(f"{path}: BUNDLE.json must be a JSON object, not {_kind(index)}")
    listed = index.get("files")
    if not isinstance(listed, dict):
        raise BundleError(f"{path}: field 'files' must be an object, not {_kind(listed)}")
    table: dict[str, tuple[int, str]] = {}
    for name, meta in listed.items():
        size = meta.get("size") if isinstance(meta, dict) else None
        digest = meta.get("sha256") if isinstance(meta, dict) else None
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise BundleError(f"{path}: files[{name!r}]: 'size' must be a whole number of bytes")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise BundleError(f"{path}: files[{name!r}]: 'sha256' must be 64 hex digits")
        table[name] = (size, digest)
    if not isinstance(index.get("run_card_hash"), str):
        raise BundleError(f"{path}: field 'run_card_hash' must be a string")
    return index, table


def _content_problems(root: Path, public_key: Ed25519PublicKey | None) -> list[str]:
    index_path = root / "BUNDLE.json"
    try:
        index, listed = read_index(index_path)
    except BundleError as exc:
        return [str(exc)]
    problems: list[str] = []
    present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {
        "BUNDLE.json"
    }
    for name in sorted(present - set(listed)):
        problems.append(f"{root / name}: not listed in BUNDLE.json")
    for name, (size, digest) in sorted(listed.items()):
        path = root / name
        if name not in present:
            problems.append(f"{path}: listed in BUNDLE.json but missing")
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest or len(data) != size:
            problems.append(f"{path}: size or sha256 differs from BUNDLE.json")
    card_path = root / "card.json"
    try:
        card = runcard.load(card_path)
        runcard.verify(card, card_path)
        if public_key is not None:
            verify_signature(card, public_key, str(card_path))
        manifest = load_manifest(root / "method" / "method.json")
    except (runcard.RunCardError, SigningError, ManifestError) as exc:
        return [*problems, str(exc)]
    shipped = file_sha256s(p for p in root.rglob("*") if p.is_file())
    problems += method_problems(root / "method", manifest, shipped)
    problems += card_matches_method(card, manifest, card_path, root / "method", root)
    if index["run_card_hash"] != card["run_card_hash"]:
        problems.append(f"{index_path}: run_card_hash does not name card.json")
    return [*problems, *_cost_report_problems(root / "cost-report.json", card)]


def _cost_report_problems(path: Path, card: Mapping[str, Any]) -> list[str]:
    try:
        report = read_json(path, "cost report", BundleError)
    except BundleError as exc:
        return [str(exc)]
    if not isinstance(report, dict):
        return [f"{path}: the cost report must be a JSON object, not {_kind(report)}"]
    if report.get("totals") != card.get("totals"):
        return [f"{path}: totals differ from the card's"]
    return []


def input_member(role: str, recorded_path: str) -> str | None:
    """Where a bundle keeps a path-arg input (``inputs/arg-NAME/FILE``); None for an input it
    does not carry (the interpreter) or a role or name that could leave the bundle."""
    found = _ARG_ROLE.fullmatch(role)
    name = Path(recorded_path).name
    if found is None or not _PLAIN_NAME.fullmatch(name) or name in (".", ".."):
        return None
    return f"inputs/arg-{found.group(1)}/{name}"


def _inputs_now(
    code: Mapping[str, Any], card_path: Path, bundle_root: Path | None
) -> tuple[list[tuple[str, str]], list[str]]:
    """(role, sha256) of each input as found now: in the bundle (``bundle_root``) or, when a
    bundle is made, where the card says it was; with the problems met."""
    found: list[tuple[str, str]] = []
    problems: list[str] = []
    listed = code.get("inputs")
    for item in listed if isinstance(listed, list) else []:
        role = str(item.get("role")) if isinstance(item, dict) else ""
        recorded = str(item.get("sha256")) if isinstance(item, dict) else ""
        where = str(item.get("path")) if isinstance(item, dict) else ""
        if role == "interpreter":
            found.append((role, recorded))  # a system program: named by its hash only
            continue
        member = input_member(role, where)
        if member is None:
            problems.append(f"{card_path}: method.code.inputs: role {role!r} is not a path arg")
            continue
        path = bundle_root / member if bundle_root is not None else Path(where)
        try:
            found.append((role, input_sha256(path)))
        except CodeHashError as exc:
            problems.append(str(exc))
    return found, problems


def card_matches_method(
    card: Mapping[str, Any],
    manifest: MethodManifest,
    card_path: Path,
    folder: Path,
    bundle_root: Path | None = None,
) -> list[str]:
    """Whether the card was made by this manifest and by exactly this code (its sealed
    ``method.code.sha256`` against the folder's hash now, with the inputs of a rule-2 card
    read from the bundle, ``bundle_root``, or where the card names them)."""
    recorded = (card.get("method") or {}).get("manifest")
    if recorded != manifest.model_dump(by_alias=True):
        return [f"{card_path}: the card was not made by this method (method.manifest differs)"]
    code = (card.get("method") or {}).get("code")
    sealed = code.get("sha256") if isinstance(code, dict) else None
    if isinstance(code, dict) and sealed is None:
        return [f"{card_path}: the card's method ran from no folder (method.code.sha256 null)"]
    if sealed is None:
        return [
            f"{card_path}: the card records no hash of the method's code (a card from before "
            "code hashes): the code in the bundle cannot be tied to the run"
        ]
    try:
        now = folder_hash(folder)["sha256"]
    except CodeHashError as exc:
        return [str(exc)]
    if isinstance(code, dict) and code.get("rule") == RULE_WITH_INPUTS:
        inputs, problems = _inputs_now(code, card_path, bundle_root)
        if problems:
            return problems
        if now != code.get("folder_sha256"):
            return [
                f"{folder}/: code sha256 {now[:12]} differs from the card's "
                f"{str(code.get('folder_sha256'))[:12]} (method.code.folder_sha256): the card "
                "was made by other code"
            ]
        now = combined_sha256(now, inputs)
        if now != sealed:
            return [
                f"{card_path}: the method's inputs (method.code.inputs) hash to {now[:12]}, "
                f"not the card's {sealed[:12]}: the card was made with other files"
            ]
        return []
    if now != sealed:
        return [
            f"{folder}/: code sha256 {now[:12]} differs from the card's {sealed[:12]} "
            "(method.code): the card was made by other code"
        ]
    return []


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
