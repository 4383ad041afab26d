"""Real session cards for the board and verification tests beyond tests/leaderboard_cards.py:
runs on a gold-standard copy of the eng→sna corpus (its real entries relabelled), runs with
another scoring profile or metric set, a partial run and a class X method."""

from __future__ import annotations

import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

from leaderboard_cards import replay_session
from replayed_runs import REPLAY, SNA_CORPUS

REPO = Path(__file__).resolve().parents[1]
ANALYZER = REPO / "corpora" / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"


@cache
def gold_corpus() -> Path:
    """The eng→sna corpus with every entry in gold_standard: the official track's data."""
    document = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))
    for entry in document["entries"]:
        entry["segment"] = "gold_standard"
    path = Path(tempfile.mkdtemp(prefix="mteval-gold-")) / "sna-gold.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@cache
def closed_method() -> Path:
    """The replay method declared class X (a bundled dependency without redistribution)."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-x-")) / "replay-x"
    shutil.copytree(REPLAY, folder)
    manifest = json.loads((folder / "method.json").read_text(encoding="utf-8"))
    manifest["dependency_class"] = "X"
    manifest["dependencies"] = [
        {
            "id": "engine", "kind": "data", "license": "proprietary", "source": "replay.py",
            "transferable": False, "access": "bundled", "redistributable": False,
        }
    ]  # fmt: skip
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@cache
def card_of(
    name: str,
    tag: str,
    corpus: Path | None = None,
    method: Path = REPLAY,
    extra: tuple[str, ...] = (),
) -> Path:
    """The card of a real session replaying run ``name`` (tests/leaderboard_cards.py RUNS)."""
    folder = Path(tempfile.mkdtemp(prefix=f"mteval-{name}-{tag}-"))
    return replay_session(name, folder / f"{name}-{tag}.json", corpus, method, extra)
