"""A sweep split into N shards, one per CI matrix job or batch array task (``--shard K/N``).

Every machine reads the same sweep file, so each must pick its share without talking to the
others. A combination's share follows from its label alone (a label is fixed by the file, not
by the checkout's path): combinations are ordered by a hash of their label and dealt round
robin, so shares differ by at most one and never overlap. Each shard writes its own index,
``sweep.shard-K-of-N.json``, so shards that share a folder do not overwrite each other.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass

from pytest_mteval.sweep.plan import Combination, SweepError, SweepPlan

#: The index of a whole sweep, and the pattern of a shard's index beside it.
WHOLE_INDEX = "sweep.json"
SHARD_INDEX_GLOB = "sweep.shard-*-of-*.json"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @property
    def text(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, option: str = "--mteval-shard") -> Shard:
    """``K/N`` with 1 <= K <= N; anything else is a one-line SweepError."""
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if found is None:
        raise SweepError(f"{option} {text!r}: expected K/N, e.g. 1/4 (shard 1 of 4)")
    index, count = int(found[1]), int(found[2])
    if count < 1 or not 1 <= index <= count:
        raise SweepError(f"{option} {text!r}: K must be from 1 to N (N at least 1)")
    return Shard(index, count)


def shard_key(combination: Combination) -> str:
    """The order in which combinations are dealt: a hash of the label, the same everywhere."""
    return hashlib.sha256(combination.label.encode("utf-8")).hexdigest()


def shard_combinations(combinations: list[Combination], shard: Shard) -> list[Combination]:
    """This shard's combinations, in the file's order."""
    dealt = sorted(combinations, key=shard_key)
    mine = {c.label for i, c in enumerate(dealt) if i % shard.count == shard.index - 1}
    return [c for c in combinations if c.label in mine]


def sharded(plan: SweepPlan, shard: Shard | None) -> SweepPlan:
    """The plan of one shard (the whole plan for None), with the whole sweep's labels kept."""
    labels = tuple(c.label for c in plan.combinations)
    if shard is None:
        return dataclasses.replace(plan, planned_labels=labels)
    mine = shard_combinations(plan.combinations, shard)
    if not mine:
        raise SweepError(
            f"{plan.path}: shard {shard.text} has no combination "
            f"(the sweep has {len(labels)}; use at most {len(labels)} shards)"
        )
    return dataclasses.replace(plan, combinations=mine, shard=shard, planned_labels=labels)


def index_name(shard: Shard | None) -> str:
    """The file name of the index a sweep (or one shard of it) writes."""
    return WHOLE_INDEX if shard is None else f"sweep.shard-{shard.index}-of-{shard.count}.json"
