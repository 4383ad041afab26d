"""The numpy encoder's layers run by ONNX Runtime: the same weights and the same computation,
in less CPU time per text (``benchmarks/semantic_speed.py`` gives the ratio).

Why: numpy runs a layer as a few dozen separate array passes, each reading and writing memory.
ONNX Runtime fuses a layer's steps (bias + GELU, residual + layer norm) into a few kernels and
can split each product over the process's cores. The graph is built here, in memory, from the
numpy encoder's dequantized weights with the ``onnx`` package's protobuf classes (no exported
file, nothing downloaded); it holds the layers up to the one matched and no more. Word vectors
are looked up in numpy (the 250k-row table stays 4-bit in the memory-mapped file); positions,
token type and the embedding layer norm are in the graph.

Texts go in sorted by length, a few at a time (``BATCH``). Their tokens go one after the other
as one (tokens, hidden) matrix through every product, so padding costs nothing there; only
attention lays them out padded to the longest of the few, with padded keys masked out. So a
text's vectors do not depend on its batch beyond float rounding: scores agree with the numpy
encoder's and with Hugging Face's BertModel within 1e-5 (``tests/test_metric_semantic.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pytest_mteval.metrics.encoder import Encoder, Layer, by_length

#: Texts per run: sorted by length, 8 share about one length for attention (8, 16 and 25 were
#: measured: 8 took the least CPU time and memory).
BATCH = 8
#: The graph's opset: 20 has Gelu, 17 LayerNormalization.
OPSET = 20


def onnx_runtime_installed() -> bool:
    """Both packages the ONNX path needs (``onnx`` builds the graph, ``onnxruntime`` runs it)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnx", "onnxruntime"))


class _Graph:
    """The model being built, written straight into its protobuf: each weight is copied once
    (into the proto), not once more per helper call (``make_graph`` and ``make_model`` copy
    their arguments), which keeps the peak memory of building low."""

    def __init__(self, onnx: Any) -> None:
        self.onnx = onnx
        self.model = onnx.ModelProto(ir_version=onnx.IR_VERSION)
        self.model.opset_import.add(domain="", version=OPSET)
        self._count = 0

    def constant(self, name: str, value: NDArray[Any]) -> str:
        tensor = self.model.graph.initializer.add(name=name, dims=value.shape)
        tensor.data_type = self.onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
        tensor.raw_data = np.ascontiguousarray(value).tobytes()
        return name

    def one(self, kind: str, *inputs: str, **attributes: Any) -> str:
        """A node of one output, named afresh."""
        self._count += 1
        out = f"{kind.lower()}{self._count}"
        node = self.onnx.helper.make_node(kind, list(inputs), [out], **attributes)
        self.model.graph.node.append(node)
        return out

    def dense(
        self, x: str, name: str, weight: NDArray[np.float32], bias: NDArray[np.float32]
    ) -> str:
        product = self.one("MatMul", x, self.constant(f"{name}.w", weight))
        return self.one("Add", product, self.constant(f"{name}.b", bias))

    def norm(self, x: str, name: str, affine: tuple[NDArray[Any], NDArray[Any]], eps: float) -> str:
        scale, shift = (self.constant(f"{name}.{p}", v) for p, v in zip("wb", affine, strict=True))
        return self.one("LayerNormalization", x, scale, shift, axis=-1, epsilon=eps)

    def value(self, name: str, kind: int, shape: Sequence[str | int]) -> Any:
        return self.onnx.helper.make_tensor_value_info(name, kind, list(shape))


def build_graph(encoder: Encoder) -> bytes:
    """The serialized ONNX model of ``encoder``: inputs ``words`` (texts, length, hidden: each
    token's word vector), ``positions`` (texts, length) and ``blocked`` (texts, 1, 1, length:
    0, or -1e9 on padding); output ``hidden``, the states of layer ``encoder.depth``."""
    graph = _Graph(importlib.import_module("onnx"))
    hidden = encoder.positions.shape[1]
    heads, size = encoder.heads, hidden // encoder.heads
    eps = encoder.epsilon
    placed = graph.one("Gather", graph.constant("emb.pos", encoder.positions), "positions")
    typed = graph.one("Add", placed, graph.constant("emb.type", encoder.token_type))
    x = graph.norm(graph.one("Add", "words", typed), "emb.ln", encoder.embedding_norm, eps)
    shapes = (
        graph.constant("heads_shape", np.array([0, 0, heads, size], np.int64)),
        graph.constant("hidden_shape", np.array([-1, hidden], np.int64)),
        graph.constant("scale", np.array(1 / np.sqrt(size), np.float32)),
    )
    for i, layer in enumerate(encoder.layers):
        x = _layer(graph, x, layer, f"l{i}", shapes, eps)
    graph.model.graph.node.append(graph.onnx.helper.make_node("Identity", [x], ["hidden"]))
    floats, longs = graph.onnx.TensorProto.FLOAT, graph.onnx.TensorProto.INT64
    graph.model.graph.input.extend(
        [
            graph.value("words", floats, ["tokens", hidden]),
            graph.value("positions", longs, ["tokens"]),
            graph.value("slots", longs, ["texts", "length"]),
            graph.value("rows", longs, ["tokens"]),
            graph.value("blocked", floats, ["texts", 1, 1, "length"]),
        ]
    )
    graph.model.graph.output.append(graph.value("hidden", floats, ["tokens", hidden]))
    serialized: bytes = graph.model.SerializeToString()
    return serialized


def _layer(
    graph: _Graph, x: str, layer: Layer, name: str, shapes: tuple[str, str, str], eps: float
) -> str:
    """One BERT layer: self-attention, residual, norm; GELU feed-forward, residual, norm."""
    split_shape, merged_shape, scale = shapes

    def heads(values: str, perm: list[int]) -> str:
        padded = graph.one("Gather", values, "slots")  # (texts, length, hidden)
        return graph.one("Transpose", graph.one("Reshape", padded, split_shape), perm=perm)

    query = heads(graph.dense(x, f"{name}.q", layer.query, layer.query_bias), [0, 2, 1, 3])
    key = heads(graph.dense(x, f"{name}.k", layer.key, layer.key_bias), [0, 2, 3, 1])
    value = heads(graph.dense(x, f"{name}.v", layer.value, layer.value_bias), [0, 2, 1, 3])
    logits = graph.one("Add", graph.one("Mul", graph.one("MatMul", query, key), scale), "blocked")
    weights = graph.one("Softmax", logits, axis=-1)
    context = graph.one("Transpose", graph.one("MatMul", weights, value), perm=[0, 2, 1, 3])
    merged = graph.one("Gather", graph.one("Reshape", context, merged_shape), "rows")
    attended = graph.dense(merged, f"{name}.ao", layer.attention_out, layer.attention_out_bias)
    x = graph.norm(graph.one("Add", x, attended), f"{name}.aln", layer.attention_norm, eps)
    inner = graph.dense(x, f"{name}.fi", layer.intermediate, layer.intermediate_bias)
    out = graph.dense(graph.one("Gelu", inner), f"{name}.fo", layer.output, layer.output_bias)
    return graph.norm(graph.one("Add", x, out), f"{name}.oln", layer.output_norm, eps)


class OnnxEncoder:
    """``encoder``'s layers in one ONNX Runtime session with ``threads`` intra-op threads. Only
    the packed model (for word vectors) is kept of ``encoder``: its dequantized layers live on
    in the session alone."""

    def __init__(self, encoder: Encoder, threads: int) -> None:
        ort = importlib.import_module("onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle pool threads sleep instead of spinning: on a shared machine spinning threads
        # doubled the CPU time of two threads and gained no wall time (the benchmark).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: no notes on stderr in a user's session
        self.model = encoder.model
        self.positions = encoder.positions
        self.depth = encoder.depth
        self.session = ort.InferenceSession(
            build_graph(encoder), options, providers=["CPUExecutionProvider"]
        )

    def hidden_states(self, sequences: Sequence[Sequence[int]]) -> list[NDArray[np.float32]]:
        """Each sequence's vectors at the encoder's depth (one row per id), batched by length."""
        return by_length(sequences, self._forward, BATCH)

    def _forward(self, sequences: Sequence[Sequence[int]]) -> NDArray[np.float32]:
        """One batch through the session, its texts' tokens one after the other as one
        (tokens, hidden) matrix for every product (no padding there); only attention lays
        them out padded, (texts, longest length), through ``slots`` and back through ``rows``."""
        lengths = np.array([len(s) for s in sequences])
        length = int(lengths.max())
        real = np.arange(length)[None, :] < lengths[:, None]
        ids = np.fromiter((i for s in sequences for i in s), np.int64)
        slots = np.zeros(real.shape, np.int64)  # a padded slot reads token 0: it is masked
        slots[real] = np.arange(len(ids))
        feed = {
            "words": self.model.embedding_rows("emb.word", ids),
            "positions": np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]),
            "slots": slots,
            "rows": np.flatnonzero(real).astype(np.int64),
            "blocked": np.where(real, 0.0, -1e9).astype(np.float32)[:, None, None, :],
        }
        (states,) = self.session.run(["hidden"], feed)
        result: NDArray[np.float32] = states
        return result
