"""A sampled LLM's stand-in for the loopback chat server, and the small eng→sna corpus and
price table the reproduction and sweep-repeat sessions run it on."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

from chat_server import Reply
from replayed_runs import SNA_CORPUS


class SamplingModel:
    """A stand-in for a sampled LLM: it answers with the entry's human reference, and at
    temperature t drops each word with probability t/4 (seeded; a fresh draw per request),
    so repeats at t > 0 differ and repeats at t = 0 agree."""

    def __init__(self, corpus: Path) -> None:
        entries = json.loads(corpus.read_text(encoding="utf-8"))["entries"]
        self.by_source = {e["source"]: e["reference"] for e in entries}
        self.random = random.Random(20261203)
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        source = max((s for s in self.by_source if s in str(user)), key=len)
        words = self.by_source[source].split()
        temperature = float(body.get("temperature") or 0.0)
        with self.lock:
            kept = [w for w in words if self.random.random() >= temperature / 4]
        return Reply.ok(" ".join(kept or words[:1]))


def sna_head_and_prices(folder: Path, entries: int) -> tuple[Path, Path]:
    """The first ``entries`` entries of the shipped eng→sna corpus, and a price table for the
    sampler's model, written in ``folder``."""
    document = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))
    document["entries"] = document["entries"][:entries]
    corpus = folder / "sna-head.json"
    corpus.write_text(json.dumps(document), encoding="utf-8")
    prices = folder / "prices.json"
    prices.write_text(json.dumps({"models": {"test/sampler": {"input": 1.0, "output": 2.0}}}))
    return corpus, prices


def submitter_and_maintainer_keys(folder: Path) -> dict[str, Path]:
    """A signing key pair for each side of a reproduction, under ``folder/keys``."""
    from pytest_mteval.cards.signing import generate_key_pair

    keys = {}
    for who in ("submitter", "maintainer"):
        keys[who] = folder / "keys" / who
        keys[who].parent.mkdir(exist_ok=True)
        generate_key_pair(keys[who])
    return keys
