"""A BERT encoder's forward pass in numpy, up to one hidden layer, over many texts at once.

Why numpy and not torch: the semantic score needs the token vectors of one inner layer of a
small encoder (multilingual-e5-small: 12 layers of width 384). A batched float32 pass over the
dequantized weights is a handful of matrix products per layer, which numpy's BLAS does about
as fast per CPU second as torch did for the English MiniLM (``benchmarks/semantic_speed.py``),
and the layers above the one matched are never computed. So the extra installs no
deep-learning framework and no CUDA library. Where ONNX Runtime is installed it runs these
layers instead, about twice as fast per CPU second (``onnx_encoder.py``); this is the fallback.

The computation is BERT's (Devlin et al., 2019) as Hugging Face's ``BertModel`` does it in
eval mode: word + position + token-type(0) embeddings, layer norm; per layer, multi-head
self-attention over the text's own tokens (padding masked), residual and layer norm, then a
GELU (erf) feed-forward block, residual and layer norm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pytest_mteval.metrics.packed_model import PackedModel

#: Texts per forward pass: big enough for BLAS, small enough that activations stay a few MB.
BATCH = 64
#: Token rows per feed-forward step: its (rows x 1536) activations fit in a core's L2 cache,
#: where the GELU's dozen element-wise passes are several times faster than from memory.
ROWS = 64
#: Texts per attention group: few enough that they share about one length.
GROUP = 8


@dataclass(frozen=True)
class Layer:
    query: NDArray[np.float32]  # (hidden, hidden), applied as x @ W: transposed once on load
    query_bias: NDArray[np.float32]
    key: NDArray[np.float32]
    key_bias: NDArray[np.float32]
    value: NDArray[np.float32]
    value_bias: NDArray[np.float32]
    attention_out: NDArray[np.float32]
    attention_out_bias: NDArray[np.float32]
    attention_norm: tuple[NDArray[np.float32], NDArray[np.float32]]
    intermediate: NDArray[np.float32]
    intermediate_bias: NDArray[np.float32]
    output: NDArray[np.float32]
    output_bias: NDArray[np.float32]
    output_norm: tuple[NDArray[np.float32], NDArray[np.float32]]


class Encoder:
    """The first ``depth`` layers of the packed model, dequantized once."""

    def __init__(self, model: PackedModel, depth: int) -> None:
        sizes = model.sizes
        if not 0 <= depth <= sizes.layers:
            raise ValueError(f"layer {depth} is not between 0 and {sizes.layers}")
        self.model = model
        self.depth = depth
        self.heads = sizes.heads
        self.epsilon = sizes.epsilon
        self.positions = model.tensor("emb.pos", sizes.positions)
        self.token_type = model.tensor("emb.type", sizes.token_types)[0]
        self.embedding_norm = (model.tensor("emb.ln.w"), model.tensor("emb.ln.b"))
        self.layers = [self._layer(model, i) for i in range(depth)]

    @staticmethod
    def _layer(model: PackedModel, i: int) -> Layer:
        hidden, inner = model.sizes.hidden, model.sizes.feed_forward

        def weight(name: str, rows: int) -> NDArray[np.float32]:
            return np.ascontiguousarray(model.tensor(f"l{i}.{name}.w", rows).T)

        def vector(name: str) -> NDArray[np.float32]:
            return model.tensor(f"l{i}.{name}")

        return Layer(
            weight("q", hidden),
            vector("q.b"),
            weight("k", hidden),
            vector("k.b"),
            weight("v", hidden),
            vector("v.b"),
            weight("ao", hidden),
            vector("ao.b"),
            (vector("aln.w"), vector("aln.b")),
            weight("fi", inner),
            vector("fi.b"),
            weight("fo", hidden),
            vector("fo.b"),
            (vector("oln.w"), vector("oln.b")),
        )

    def hidden_states(self, sequences: Sequence[Sequence[int]]) -> list[NDArray[np.float32]]:
        """Each sequence's vectors at layer ``depth`` (one row per id), batched by length."""
        return by_length(sequences, self._forward, BATCH)

    def _forward(self, sequences: Sequence[Sequence[int]]) -> NDArray[np.float32]:
        """The texts' tokens, one after the other, as one (tokens, hidden) matrix for every
        product, so padding costs nothing there; attention pads only within small groups of
        texts of about the same length (the texts come sorted by length)."""
        ids = np.fromiter((i for s in sequences for i in s), np.int64)
        positions = np.concatenate([np.arange(len(s)) for s in sequences])
        words = self.model.embedding_rows("emb.word", ids)
        x = self._norm(words + self.positions[positions] + self.token_type, self.embedding_norm)
        lengths = [len(s) for s in sequences]
        groups = [_Group.of(lengths, i, i + GROUP) for i in range(0, len(lengths), GROUP)]
        for layer in self.layers:
            x = self._layer_forward(layer, x, groups)
        return x

    def _layer_forward(
        self, layer: Layer, x: NDArray[np.float32], groups: list[_Group]
    ) -> NDArray[np.float32]:
        q = x @ layer.query + layer.query_bias
        k = x @ layer.key + layer.key_bias
        v = x @ layer.value + layer.value_bias
        context = np.empty_like(x)
        for group in groups:
            context[group.start : group.end] = group.attend(q, k, v, self.heads)
        attended = context @ layer.attention_out + layer.attention_out_bias
        x = self._norm(x + attended, layer.attention_norm)
        out = np.empty_like(x)
        for start in range(0, len(x), ROWS):  # the 4x wider activations stay in the cache
            rows = x[start : start + ROWS]
            inner = _gelu(rows @ layer.intermediate + layer.intermediate_bias)
            out[start : start + ROWS] = rows + inner @ layer.output + layer.output_bias
        return self._norm(out, layer.output_norm)

    def _norm(
        self, x: NDArray[np.float32], affine: tuple[NDArray[np.float32], NDArray[np.float32]]
    ) -> NDArray[np.float32]:
        mean = x.mean(axis=-1, keepdims=True)
        centered = x - mean
        variance = (centered * centered).mean(axis=-1, keepdims=True)
        scale, shift = affine
        epsilon = np.float32(self.epsilon)
        normed: NDArray[np.float32] = centered / np.sqrt(variance + epsilon) * scale + shift
        return normed


@dataclass(frozen=True)
class _Group:
    """A few consecutive texts, padded to the longest of them for attention."""

    start: int  # first token row
    end: int
    slots: NDArray[np.intp]  # where each token sits in the (texts x length) padded layout
    blocked: NDArray[np.float32]  # -inf on padded keys: no token attends to padding
    texts: int
    length: int

    @classmethod
    def of(cls, lengths: Sequence[int], first: int, stop: int) -> _Group:
        chosen = lengths[first:stop]
        length = max(chosen)
        mask = np.arange(length)[None, :] < np.array(chosen)[:, None]
        start = sum(lengths[:first])
        blocked = np.where(mask, 0.0, -np.inf).astype(np.float32)[:, None, None, :]
        return cls(start, start + sum(chosen), np.flatnonzero(mask), blocked, len(chosen), length)

    def attend(
        self, q: NDArray[np.float32], k: NDArray[np.float32], v: NDArray[np.float32], heads: int
    ) -> NDArray[np.float32]:
        """Multi-head scaled dot-product attention of the group's tokens among themselves."""
        hidden = q.shape[1]
        size = hidden // heads

        def split(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
            padded = np.zeros((self.texts * self.length, hidden), np.float32)
            padded[self.slots] = matrix[self.start : self.end]
            shape = (self.texts, self.length, heads, size)
            return padded.reshape(shape).transpose(0, 2, 1, 3)

        logits = split(q) @ split(k).transpose(0, 1, 3, 2) / np.float32(np.sqrt(size))
        logits += self.blocked
        logits -= logits.max(axis=-1, keepdims=True)
        weights = np.exp(logits)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ split(v)).transpose(0, 2, 1, 3).reshape(-1, hidden)
        out: NDArray[np.float32] = context[self.slots]
        return out


def _gelu(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """x * Phi(x), Phi from erf by Abramowitz & Stegun 7.1.26 (error below 1.5e-7), computed
    in place: this is the pass's largest array, and numpy has no erf."""
    z = np.abs(x)
    z *= np.float32(1 / np.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    tail = t * np.float32(1.061405429)  # becomes 1 - erf(|x| / sqrt 2)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        tail += np.float32(coefficient)
        tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z
    tail *= np.float32(0.5)  # Phi(-|x|)
    phi = np.where(x >= 0, 1 - tail, tail)
    phi *= x
    return phi


def by_length(
    sequences: Sequence[Sequence[int]],
    forward: Callable[[Sequence[Sequence[int]]], NDArray[np.float32]],
    batch: int,
) -> list[NDArray[np.float32]]:
    """Each sequence's rows of ``forward``, which takes texts ``batch`` at a time sorted by
    length (less padding) and returns their tokens' rows one after the other; in input order."""
    order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
    out: list[NDArray[np.float32]] = [np.zeros((0, 0), np.float32)] * len(sequences)
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        states = forward([sequences[i] for i in chunk])
        ends = np.cumsum([len(sequences[i]) for i in chunk])
        for i, rows in zip(chunk, np.split(states, ends[:-1]), strict=True):
            out[i] = rows
    return out
