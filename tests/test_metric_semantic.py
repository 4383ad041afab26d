"""Semantic score: the metric with toy embedders everywhere (sentence vectors: cosine; token
vectors: BERTScore F1, by hand), and for real with the extra's bundled all-MiniLM-L6-v2 on FLORES
fra->eng, checked against the Hugging Face model run directly (skipped without the extra)."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.languages import canonical
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.semantic import (
    SemanticScore,
    TokenEmbedder,
    bertscore_f1,
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


class LetterTokens(LetterCounts):
    """A toy token embedder: every character is a token, a one-hot vector over a, b and c
    (any other character is the zero vector, similar to nothing)."""

    name = "letter tokens"

    def embed_tokens(self, texts: Sequence[str]) -> list[Any]:
        np = pytest.importorskip("numpy")
        self.calls.append(len(texts))
        return [
            np.array([[float(ch == c) for c in "abc"] for ch in t], dtype=np.float32).reshape(
                len(t), 3
            )
            for t in texts
        ]


@pytest.mark.parametrize(
    ("predicted", "reference", "precision", "recall"),
    [
        ("abc", "abc", 1, 1),
        ("ab", "abc", 1, 2 / 3),  # an omission costs recall
        ("abcx", "abc", 3 / 4, 1),  # an addition costs precision
        ("cba", "abc", 1, 1),  # greedy matching ignores order (chrF++ does not)
        ("aab", "abc", 1, 2 / 3),
        ("xyz", "abc", 0, 0),
        ("", "abc", 0, 0),
    ],
)
def test_token_matching_by_hand(
    predicted: str, reference: str, precision: float, recall: float
) -> None:
    embedder = LetterTokens()
    assert isinstance(embedder, TokenEmbedder)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    tokens = embedder.embed_tokens([predicted, reference])
    assert bertscore_f1(tokens[0], tokens[1]) == pytest.approx(f1)
    metric = SemanticScore(embedder)
    entry = load_corpus(FRA_ENG).entries[0].model_copy(update={"reference": reference})
    assert metric.score_entry(entry, predicted) == {"semantic_score": round(f1, 6)}


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
    assert metric.embedder.name == "sentence-transformers/all-MiniLM-L6-v2 bertscore-f1 layer 3"
    entries = load_corpus(FRA_ENG).entries
    first = entries[0]
    # Line 3 is on the same topic (diabetes), line 4 is about the Nobel Prize and Bob Dylan.
    others = (PARAPHRASE, entries[2].reference, entries[3].reference)
    scores = [metric.score_entry(first, p)["semantic_score"] for p in others]
    assert metric.score_entry(first, first.reference)["semantic_score"] == pytest.approx(
        1, abs=1e-5
    )
    assert scores[0] > 0.7
    assert scores[0] > scores[1] + 0.2
    assert scores[1] > scores[2] + 0.1

    # Independent check: the Hugging Face model itself (not sentence-transformers), its
    # hidden states of layer 3 of 6, [CLS]/[SEP] dropped, greedy matching in numpy.
    np = pytest.importorskip("numpy")
    torch = pytest.importorskip("torch")
    from transformers import AutoModel, AutoTokenizer

    folder = str(metric.embedder.model_path)  # type: ignore[attr-defined]
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder)
    assert model.config.num_hidden_layers == 6

    def vectors(text: str) -> Any:
        encoded = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            layers = model(**encoded, output_hidden_states=True).hidden_states
        rows = layers[3][0, 1:-1].numpy().astype(np.float64)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    for text, score in zip(others, scores, strict=True):
        similarity = vectors(text) @ vectors(first.reference).T
        precision, recall = similarity.max(axis=1).mean(), similarity.max(axis=0).mean()
        assert score == pytest.approx(2 * precision * recall / (precision + recall), abs=2e-5)
