"""Issue 41, group 5: references stored base64-, hex-, zlib-, gzip- or xz-encoded, or written
backwards, in a method's folder are found by ``mteval audit --strict --corpus`` and refused by
``mteval bundle check --corpus``, as verbatim ones were."""

from __future__ import annotations

import base64
import gzip
import json
import lzma
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leaderboard_cards import RUNS
from methods_for_tests import MANIFEST
from test_bundle import analyzer, method, run  # noqa: F401  # fixtures

from pytest_mteval.cards.bundle import make_bundle
from pytest_mteval.cards.encoded_texts import MAX_DECODED_BYTES, decoded_texts
from pytest_mteval.cli.main import main

CORPUS = RUNS["haiku"][2]


def references() -> dict[str, str]:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    return {str(e["id"]): e["reference"] for e in entries}


def _b64(data: bytes) -> bytes:
    return base64.b64encode(data)


#: name -> (file name, how the references' JSON is stored)
HIDDEN: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "base64": ("notes.txt", _b64),
    "urlsafe-base64-in-code": (
        "helper.py",
        lambda d: b"BLOB = '" + base64.urlsafe_b64encode(d) + b"'\n",
    ),
    "zlib": ("weights.bin", zlib.compress),
    "gzip": ("model.dat", gzip.compress),
    "xz": ("model.xz", lzma.compress),
    "base64-of-zlib": ("table.json", lambda d: _b64(zlib.compress(d)).join([b'{"w":"', b'"}'])),
    "reversed": ("words.txt", lambda d: d.decode("utf-8")[::-1].encode("utf-8")),
    "hex": ("vectors.txt", lambda d: d.hex().encode()),
    "reversed-base64": ("pad.txt", lambda d: _b64(d)[::-1]),
}  # fmt: skip


def hide(folder: Path, how: str) -> None:
    name, encode = HIDDEN[how]
    (folder / name).write_bytes(encode(json.dumps(references(), ensure_ascii=False).encode()))


def audit_folder(root: Path) -> Path:
    folder = root / "hider"
    folder.mkdir()
    manifest = {**MANIFEST, "dependency_class": "S"}
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "probe.py").write_text("class Probe:\n    pass\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", list(HIDDEN))
def test_audit_strict_finds_encoded_references(tmp_path, how):
    folder = audit_folder(tmp_path)
    clean = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "audit", str(folder), "--strict",
         "--corpus", str(CORPUS), "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert clean.returncode == 0, clean.stdout
    hide(folder, how)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "audit", str(folder), "--strict",
         "--corpus", str(CORPUS), "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout
    report = json.loads(done.stdout)["overlap"][0]
    assert not report["declared"]
    assert set(report["references"]) == set(references())
    name = HIDDEN[how][0]
    assert all(f["file"].startswith(f"{name} (") for f in report["files"]), report["files"]


@pytest.mark.parametrize("how", ["base64", "zlib", "gzip", "base64-of-zlib", "reversed"])
def test_bundle_check_refuses_encoded_references(pytester, tmp_path, method, analyzer, how, capsys):  # noqa: F811
    hide(method, how)
    run(pytester, method, tmp_path / "card.json")
    bundle = make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer])
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle), "--corpus", str(CORPUS)]) == 1
    out = capsys.readouterr().out
    assert f"{HIDDEN[how][0]}: holds" in out, out
    assert "encoded (" in out, out


def test_a_compression_bomb_costs_a_bounded_amount():
    bomb = zlib.compress(b"\0" * (4 * MAX_DECODED_BYTES))
    decoded = list(decoded_texts(bomb))
    assert sum(len(text) for _, text in decoded) <= MAX_DECODED_BYTES


def _reverse(data: bytes) -> bytes:
    return data.decode("utf-8")[::-1].encode("utf-8")


def _hex(data: bytes) -> bytes:
    return data.hex().encode()


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=20, max_size=200).filter(lambda t: t.strip()))
def test_every_layering_of_a_text_is_undone(text):
    """base64 of zlib, hex of reversed...: each pair of layers gives the text back."""
    data = text.encode("utf-8")
    for outer in (_b64, _hex, zlib.compress, gzip.compress):
        for inner in (zlib.compress, gzip.compress, lzma.compress, _reverse, _b64):
            found = {t for _, t in decoded_texts(outer(inner(data)))}
            assert text in found, (outer, inner)
