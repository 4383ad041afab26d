"""Run cards of real sessions for the leaderboard, report and bundle tests: the shipped
upstream LLM outputs (tests/data/upstream-runs) replayed, each under its model's slug, so the
cards differ in fingerprint as the real runs did."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from replayed_runs import DEEPSEEK, GEMINI_SME, GPT55, HAIKU, REPLAY, SME_CORPUS, SNA_CORPUS

#: (predictions, model slug, corpus) of the cards the tests rank.
RUNS = {
    "gpt55": (GPT55, "openai/gpt-5.5", SNA_CORPUS),
    "haiku": (HAIKU, "anthropic/claude-haiku-4.5", SNA_CORPUS),
    "deepseek": (DEEPSEEK, "deepseek/deepseek-v4-pro", SNA_CORPUS),
    "gemini-sme": (GEMINI_SME, "google/gemini-3.5-flash", SME_CORPUS),
}


@cache
def session_card(
    name: str, tag: str = "", method: Path = REPLAY, extra: tuple[str, ...] = ()
) -> Path:
    """The card of a real pytest session replaying run ``name``; ``tag`` makes another run of
    the same configuration (a reproduction)."""
    folder = Path(tempfile.mkdtemp(prefix=f"mteval-{name}{tag}-"))
    return replay_session(name, folder / f"{name}{tag}.json", method=method, extra=extra)


def replay_session(
    name: str,
    card: Path,
    corpus: Path | None = None,
    method: Path = REPLAY,
    extra: tuple[str, ...] = (),
) -> Path:
    """Run a pytest session replaying run ``name`` (on its own corpus unless ``corpus``) in
    ``card``'s folder; the card it wrote."""
    predictions, model, default_corpus = RUNS[name]
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--mteval-corpus={corpus or default_corpus}", f"--mteval-method={method}",
            f"--mteval-method-arg=predictions={predictions}", f"--mteval-model={model}",
            f"--mteval-run-card={card}", *extra,
        ],
        cwd=card.parent, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if not card.exists():
        raise RuntimeError(f"replay session wrote no card:\n{done.stdout}\n{done.stderr}")
    return card


def load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def copy_cards(folder: Path, *names: str) -> dict[str, Path]:
    """Copies of the named session cards in ``folder`` (name -> path)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in names:
        target = folder / f"{name}.json"
        target.write_bytes(session_card(name).read_bytes())
        out[name] = target
    return out
