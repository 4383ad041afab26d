"""Real runs for the gate, compare and regression tests: upstream LLM outputs (tests/data,
see its SOURCE.md) replayed through a real pytest-mteval session, and the reports themselves."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "tests" / "data" / "upstream-runs"
SNA_CORPUS = REPO / "corpora" / "eng-sna-tatoeba-dev.json"
SME_CORPUS = REPO / "corpora" / "eng-sme-tatoeba-dev.json"
REPLAY = REPO / "methods" / "replay"

GPT55 = RUNS / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
HAIKU = RUNS / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b_report.json"
DEEPSEEK = RUNS / "run_20260612_124849_deepseek_deepseekv4pro_naive_all_b25_c5b05a_report.json"
GEMINI_SME = RUNS / "run_20260612_125923_google_gemini35flash_naive_all_b25_c184e6_report.json"


def report(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


@cache
def replay_card(predictions: Path, corpus: Path = SNA_CORPUS) -> Path:
    """The run card of a real session replaying ``predictions`` over ``corpus`` (made once)."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-replay-"))
    card = folder / "card.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--mteval-corpus={corpus}",
            f"--mteval-method={REPLAY}",
            f"--mteval-method-arg=predictions={predictions}",
            f"--mteval-run-card={card}",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if not card.exists():
        raise RuntimeError(f"replay session wrote no card:\n{done.stdout}\n{done.stderr}")
    return card


def card_dict(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))
