"""Real session cards for the ranking rule (reports/board_rules.py): the shipped example sweep,
an honest replay and its copy, a stub answering one sentence to every entry, a run where every
entry errored, and an honest replay by a method whose audit contradicts its class."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from leaderboard_cards import replay_session, session_card
from replayed_runs import REPLAY, SNA_CORPUS

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SWEEP = REPO / "examples" / "sweep.toml"

#: Code the audit of a class S method contradicts: it searches the harness's memory.
INTROSPECTION = """
import gc


def entries_in_memory():
    return [o for o in gc.get_objects() if type(o).__name__ == "Entry"]
"""


def _entries() -> list[dict[str, object]]:
    return list(json.loads(SNA_CORPUS.read_text(encoding="utf-8"))["entries"])


@cache
def example_sweep() -> Path:
    """The output folder of the shipped example sweep, run as the docs say (a real session)."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-example-sweep-"))
    shutil.copy(EXAMPLE_SWEEP, folder / "sweep.toml")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--mteval-sweep=sweep.toml"],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    out = folder / ".mteval" / "sweeps" / "sweep"
    if not (out / "sweep.json").is_file():
        raise RuntimeError(f"the example sweep wrote no index:\n{done.stdout}\n{done.stderr}")
    return out


def example_sweep_cards() -> list[Path]:
    """The four cards of the example sweep, in the order its index lists them."""
    index = json.loads((example_sweep() / "sweep.json").read_text(encoding="utf-8"))
    return [Path(run["card"]) for run in index["runs"]]


def _predictions(name: str, rows: list[dict[str, object]]) -> Path:
    path = Path(tempfile.mkdtemp(prefix=f"mteval-{name}-")) / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _replayed(name: str, predictions: Path, method: Path = REPLAY) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"mteval-{name}-"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--mteval-corpus={SNA_CORPUS}", f"--mteval-method={method}",
         f"--mteval-method-arg=predictions={predictions}", f"--mteval-model=test/{name}",
         f"--mteval-run-card={folder / f'{name}.json'}"],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    card = folder / f"{name}.json"
    if not card.exists():
        raise RuntimeError(f"{name}: the session wrote no card:\n{done.stdout}\n{done.stderr}")
    return card


@cache
def honest_card() -> Path:
    """A real LLM's outputs (gpt-5.5 on eng→sna) replayed: the honest method."""
    return session_card("gpt55")


@cache
def repeated_stub_card() -> Path:
    """A stub answering the first entry's human reference to every entry."""
    entries = _entries()
    sentence = str(entries[0]["reference"])
    rows = [{"id": e["id"], "predicted": sentence} for e in entries]
    return _replayed("same-sentence", _predictions("same-sentence", rows))


@cache
def all_errored_card() -> Path:
    """A run whose every entry came back as an error (the provider was down)."""
    rows = [{"id": e["id"], "predicted": None, "error": "provider unavailable"} for e in _entries()]
    return _replayed("all-errored", _predictions("all-errored", rows))


@cache
def audit_contradicted_card() -> Path:
    """The honest replay again, by a class S method whose folder searches the harness's memory."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-introspecting-")) / "replay-introspecting"
    shutil.copytree(REPLAY, folder)
    (folder / "introspection.py").write_text(INTROSPECTION, encoding="utf-8")
    card = folder.parent / "introspecting.json"
    return replay_session("gpt55", card, method=folder)
