"""What the fault checks of issue 9 cost, as ratios against what they replace.

- Reading a corpus: ``json_files.parse_json`` (bounds on nesting and number length, no NaN, no
  lone surrogates) against plain ``json.loads``, on the FLORES eng->fra devtest corpus
  (1,012 entries) repeated ``--repeat`` times in one file.
- Checking results: ``result_model.validate_result`` (pydantic, every field) against the
  ``json.dumps`` check it replaced, on 10,000 results shaped like an LLM method's.
- Both against sacrebleu's sentence chrF++ of the same entries (the work a run does anyway).

Usage: ``python benchmarks/fault_checks.py [--repeat 10]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import sacrebleu
from timing import best_of

from pytest_mteval.json_files import parse_json
from pytest_mteval.run.result_model import validate_result

FLORES = Path(__file__).resolve().parents[1] / "corpora" / "eng-fra-flores-devtest.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    corpus = json.loads(FLORES.read_text(encoding="utf-8"))
    corpus["entries"] = corpus["entries"] * args.repeat
    data = json.dumps(corpus, ensure_ascii=False).encode("utf-8")
    plain = best_of(5, lambda: json.loads(data.decode("utf-8")))
    bounded = best_of(5, lambda: parse_json(data, "corpus"))
    entries = corpus["entries"][:10_000]
    results = [
        {
            "id": e["id"],
            "predicted": e["source"],
            "latency_s": 0.8,
            "usage": {"prompt_tokens": 40, "completion_tokens": 30},
            "cost_usd": 0.0001,
            "metadata": {"model_id": "x/y", "finish_reason": "stop"},
            "tool_calls": [],
        }
        for e in entries
    ]
    dumps = best_of(3, lambda: [json.dumps(r, allow_nan=False) for r in results])
    checked = best_of(3, lambda: [validate_result(str(r["id"]), r) for r in results])
    chrf = best_of(
        1,
        lambda: [
            sacrebleu.sentence_chrf(e["source"], [e["reference"]], word_order=2)
            for e in entries[:2000]
        ],
    ) * (len(entries) / 2000)
    print(f"corpus of {len(corpus['entries'])} entries ({len(data) / 2**20:.1f} MiB)")
    print(f"  parse_json / json.loads           {bounded / plain:6.2f}x")
    print(f"{len(results)} results")
    print(f"  validate_result / json.dumps      {checked / dumps:6.2f}x")
    print(f"  validate_result / sentence chrF++ {checked / chrf:6.3f}x")


if __name__ == "__main__":
    main()
