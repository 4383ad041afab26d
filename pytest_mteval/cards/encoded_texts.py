"""The texts a file holds in encoded form: what a method hides references in.

A verbatim search misses references stored base64- or hex-encoded, zlib-, gzip-, bz2- or
xz-compressed, or written backwards. :func:`decoded_texts` undoes each of these, on the whole
file and on every long base64 or hex run inside it, a few layers deep (base64 of zlib of
reversed text), and yields each text found with the steps that undid it. Output is bounded so
that a compression bomb costs no more than a large file.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import lzma
import re
import zlib
from collections.abc import Iterator
from typing import Final

__all__ = ["MAX_DECODED_BYTES", "decoded_texts"]

#: The most bytes decoded from one file, all layers together.
MAX_DECODED_BYTES: Final = 64 * 1024 * 1024
#: Layers undone one inside the other (base64 of zlib of reversed text is three).
MAX_LAYERS: Final = 4
#: The shortest encoded run worth decoding (zlib of a short, repetitive text is 12 in base64).
MIN_RUN: Final = 12
_BASE64_RUN: Final = re.compile(rb"[A-Za-z0-9+/_-]{%d,}={0,2}" % MIN_RUN)
_HEX_RUN: Final = re.compile(rb"(?:[0-9a-fA-F]{2}){%d,}" % (MIN_RUN // 2))


class _Budget:
    """Bytes left to decode from one file."""

    def __init__(self) -> None:
        self.left = MAX_DECODED_BYTES

    def take(self, data: bytes) -> bytes:
        data = data[: max(self.left, 0)]
        self.left -= len(data)
        return data


def decoded_texts(data: bytes) -> Iterator[tuple[str, str]]:
    """``(steps, text)`` for each text ``data`` holds encoded, ``steps`` naming how it was
    found ("base64", "zlib+reversed"); the plain text itself is not yielded."""
    budget = _Budget()
    seen: set[bytes] = set()
    yield from _layers(data, (), budget, seen)


def _layers(
    data: bytes, steps: tuple[str, ...], budget: _Budget, seen: set[bytes]
) -> Iterator[tuple[str, str]]:
    if len(steps) >= MAX_LAYERS or budget.left <= 0:
        return
    for step, inner in _undone(data, steps, budget):
        key = inner[:4096] + len(inner).to_bytes(8, "big")
        if key in seen or not inner:
            continue
        seen.add(key)
        path = (*steps, step)
        text = inner.decode("utf-8", errors="ignore")
        if text.strip():
            yield "+".join(reversed(path)), text
        yield from _layers(inner, path, budget, seen)


def _undone(data: bytes, steps: tuple[str, ...], budget: _Budget) -> Iterator[tuple[str, bytes]]:
    """One layer undone each way it can be: decompressed, decoded, reversed."""
    for name, inflate in _DECOMPRESSORS:
        inflated = inflate(data, budget)
        if inflated:
            yield name, inflated
    for run in _BASE64_RUN.findall(data):
        decoded = _base64(run)
        if decoded is not None:
            yield "base64", budget.take(decoded)
    for run in _HEX_RUN.findall(data):
        yield "hex", budget.take(binascii.unhexlify(run))
    if "reversed" not in steps:
        text = data.decode("utf-8", errors="ignore")
        yield "reversed", budget.take(text[::-1].encode("utf-8"))


def _base64(run: bytes) -> bytes | None:
    run = run.rstrip(b"=")
    padded = run + b"=" * (-len(run) % 4)
    alphabet = b"-_" if b"-" in run or b"_" in run else b"+/"
    try:
        return base64.b64decode(padded, altchars=alphabet, validate=True)
    except (binascii.Error, ValueError):
        return None


def _zlib(data: bytes, budget: _Budget, wbits: int) -> bytes:
    """``data`` inflated (zlib, gzip or raw deflate by ``wbits``), at most the budget."""
    try:
        inflater = zlib.decompressobj(wbits)
        return budget.take(inflater.decompress(data, max(budget.left, 1)))
    except zlib.error:
        return b""


def _stream(data: bytes, budget: _Budget, make: type[bz2.BZ2Decompressor]) -> bytes:
    try:
        return budget.take(make().decompress(data, max(budget.left, 1)))
    except (OSError, EOFError, ValueError):
        return b""


def _bz2(data: bytes, budget: _Budget) -> bytes:
    return _stream(data, budget, bz2.BZ2Decompressor) if data[:3] == b"BZh" else b""


def _xz(data: bytes, budget: _Budget) -> bytes:
    if data[:6] != b"\xfd7zXZ\x00" and data[:1] != b"\x5d":
        return b""
    try:
        return budget.take(lzma.LZMADecompressor().decompress(data, max(budget.left, 1)))
    except lzma.LZMAError:
        return b""


_DECOMPRESSORS: Final = (
    ("zlib", lambda data, budget: _zlib(data, budget, 15) if data[:1] == b"\x78" else b""),
    ("gzip", lambda data, budget: _zlib(data, budget, 31) if data[:2] == b"\x1f\x8b" else b""),
    ("bz2", _bz2),
    ("xz", _xz),
)
