"""Semantic score: the metric with a toy embedder everywhere, and for real with the extra's
bundled all-MiniLM-L6-v2 on FLORES fra->eng (skipped when the extra is not installed)."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.languages import canonical
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.semantic import (
    SemanticScore,
    build,
    bundled_embedder,
    cosine,
)

REPO = Path(__file__).resolve().parents[1]
FRA_ENG = REPO / "corpora" / "fra-eng-flores-devtest.json"
ENG_FRA = REPO / "corpora" / "eng-fra-flores-devtest.json"
#: A human paraphrase of FLORES devtest line 1's English reference.
PARAPHRASE = (
    '"Our mice are four months old now, and they used to be diabetic but no longer are," he said.'
)
HAS_EXTRA = importlib.util.find_spec("sentence_transformers") is not None


class LetterCounts:
    """A toy embedder: counts of a, b and c. Deterministic, and its cosines are easy by hand."""

    name = "letters"
    languages = frozenset({"en"})

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [[float(t.count(c)) for c in "abc"] for t in texts]


def test_cosine_by_hand() -> None:
    assert cosine([1, 0], [0, 1]) == 0.0
    assert cosine([1, 1], [2, 2]) == pytest.approx(1.0)
    assert cosine([1, 0], [1, 1]) == pytest.approx(1 / math.sqrt(2))
    assert cosine([0, 0], [1, 1]) == 0.0


def test_metric_with_a_pluggable_embedder() -> None:
    embedder = LetterCounts()
    metric = build(MetricContext(corpus=load_corpus(FRA_ENG)), embedder)
    assert isinstance(metric, Metric)
    assert metric is not None
    entries = load_corpus(FRA_ENG).entries[:2]
    rows = metric.score_batch(entries, ["abc", "aaa"])
    assert embedder.calls == [4]  # one call for the whole batch
    for row, entry, predicted in zip(rows, entries, ["abc", "aaa"], strict=True):
        ref = [entry.reference.count(c) for c in "abc"]
        expected = max(0.0, cosine([predicted.count(c) for c in "abc"], ref))
        assert row["semantic_score"] == pytest.approx(expected, abs=1e-6)
    assert metric.score_entry(entries[0], "xyz") == {"semantic_score": 0.0}
    agg = metric.aggregate([*rows, {"predicted": None, "semantic_score": None}])
    assert agg["semantic_score"] == pytest.approx(sum(r["semantic_score"] for r in rows) / 2)
    assert agg["semantic_model"] == "letters"
    assert metric.aggregate([])["semantic_score"] is None


def test_not_built_for_a_language_the_embedder_cannot_read() -> None:
    assert build(MetricContext(corpus=load_corpus(ENG_FRA)), LetterCounts()) is None
    assert [canonical(c) for c in ("en", "en-GB", "eng_Latn", "FR")] == ["en", "en", "en", "fr"]


@pytest.mark.skipif(HAS_EXTRA, reason="checks the behaviour without the semantic extra")
def test_without_the_extra_the_score_is_unavailable() -> None:
    assert bundled_embedder() is None
    assert build(MetricContext(corpus=load_corpus(FRA_ENG))) is None


@pytest.mark.skipif(not HAS_EXTRA, reason="needs pytest-mteval[semantic]")
def test_bundled_model_scores_a_real_fra_eng_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    metric = build(MetricContext(corpus=load_corpus(FRA_ENG)))
    assert isinstance(metric, SemanticScore)
    entries = load_corpus(FRA_ENG).entries
    first = entries[0]
    # Line 3 is on the same topic (diabetes), line 4 is about the Nobel Prize and Bob Dylan.
    others = (PARAPHRASE, entries[2].reference, entries[3].reference)
    scores = [metric.score_entry(first, p)["semantic_score"] for p in others]
    assert metric.score_entry(first, first.reference)["semantic_score"] == pytest.approx(
        1, abs=1e-5
    )
    assert scores[0] > 0.8
    assert scores[0] > scores[1] + 0.2
    assert scores[1] > scores[2] + 0.2

    # Independent check: the model's own normalized embeddings and a numpy dot product.
    np = pytest.importorskip("numpy")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(metric.embedder.model_path), device="cpu")  # type: ignore[attr-defined]
    vectors = model.encode([PARAPHRASE, first.reference], normalize_embeddings=True)
    assert scores[0] == pytest.approx(float(np.dot(vectors[0], vectors[1])), abs=1e-5)
