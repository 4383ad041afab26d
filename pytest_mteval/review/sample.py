"""Draw the review sample of a run card: stratified by difficulty tier, seeded, reproducible.

The sample is a pure function of the card's hash, its results and ``n``: the seed is not a
choice but derived from the hash (``verification_tier.review_seed``), so nobody can try seeds
until the sample flatters a method. The sample id names all three (``<hash12>-n50-s<seed>``):
ingestion re-draws it from the card and checks the reviewers' rows against it, so no separate
file can drift from what was reviewed. A record drawn with another seed earns nothing.
A secret run's card carries no text, but its rows keep ids, difficulties and scores, so the
same draw picks the same entries from it; their texts are in the sample the harness sealed to
the steward (``sealed_sample``), whose block the card gets after the draw (``drawing_hash``).

Strata are the entries' difficulty tiers (spec §2.2) when the card has them; a corpus without
difficulties is stratified by the run's own sentence chrF++ terciles instead, so the sample
still spans its weak and strong outputs. Each stratum gets a share of ``n`` proportional to
its size (largest remainders, at least one entry per stratum while ``n`` allows).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mteval.cards.runcard import card_hash
from pytest_mteval.cards.verification_tier import review_seed
from pytest_mteval.errors import MtevalError

DEFAULT_SIZE: Final = 50
_SAMPLE_ID: Final = re.compile(r"^(?P<hash>[0-9a-f]{12})-n(?P<n>[0-9]+)-s(?P<seed>-?[0-9]+)$")


class SampleError(MtevalError):
    """A sample that cannot be drawn or read; the message is one line."""


@dataclass(frozen=True)
class Item:
    entry_id: str
    source: str
    prediction: str
    reference: str
    stratum: str


@dataclass(frozen=True)
class Sample:
    sample_id: str
    card_hash: str
    size: int
    seed: int
    stratified_by: str
    #: stratum -> {"population": entries in the run, "drawn": entries sampled}
    strata: dict[str, dict[str, int]]
    items: tuple[Item, ...]

    def entry_ids(self) -> list[str]:
        return [item.entry_id for item in self.items]

    def record(self) -> dict[str, Any]:
        """What a validation record keeps of the sample (no texts: the card has them)."""
        return {
            "sample_id": self.sample_id,
            "size": self.size,
            "seed": self.seed,
            "drawn_from": self.card_hash,
            "stratified_by": self.stratified_by,
            "strata": self.strata,
            "entry_ids": self.entry_ids(),
        }


def sample_id(card_hash: str, size: int, seed: int) -> str:
    return f"{card_hash[:12]}-n{size}-s{seed}"


def parse_sample_id(text: str) -> tuple[str, int, int]:
    """(hash prefix, n, seed) of a sample id."""
    match = _SAMPLE_ID.match(text.strip())
    if match is None:
        raise SampleError(f"{text!r} is not a sample id (expected <hash12>-n<N>-s<SEED>)")
    return match["hash"], int(match["n"]), int(match["seed"])


def answered_rows(card: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The result rows a reviewer can judge: translated, not errored (on a secret run's card,
    whose rows carry no text, every row without an error)."""
    return [
        row
        for row in card.get("results") or []
        if row.get("error") is None
        and (isinstance(row.get("predicted"), str) or row.get("text_withheld") is True)
    ]


def drawing_hash(card: Mapping[str, Any]) -> str:
    """The hash a sample of ``card`` is drawn with: its run_card_hash, or, on a secret run's
    card, which records the sample sealed to the steward (``review_sample``, added and
    re-sealed after the draw), the hash of the card without that block."""
    block = card.get("review_sample")
    if block is None:
        return str(card.get("run_card_hash") or "")
    basis = card_hash({key: value for key, value in card.items() if key != "review_sample"})
    if not isinstance(block, Mapping) or block.get("drawn_from") != basis:
        raise SampleError(
            "field 'review_sample.drawn_from': not the hash of the card without its "
            "review_sample block (edited?)"
        )
    return basis


def draw(card: Mapping[str, Any], size: int = DEFAULT_SIZE, seed: int | None = None) -> Sample:
    """The sample of ``size`` answered entries (all of them when the run has fewer), drawn
    with the seed the card's hash fixes; ``seed`` re-draws an old record's sample only."""
    if size < 1:
        raise SampleError(f"a sample needs at least one entry, not {size}")
    if not re.fullmatch(r"[0-9a-f]{64}", str(card.get("run_card_hash") or "")):
        raise SampleError("the card has no run_card_hash: seal (and verify) it first")
    card_hash = drawing_hash(card)
    if seed is None:
        seed = review_seed(card_hash)
    rows = answered_rows(card)
    if not rows:
        raise SampleError("the card has no translated entry to review")
    by, strata = _strata(rows)
    quotas = _quotas({name: len(members) for name, members in strata.items()}, size)
    rng = random.Random(f"{card_hash}:{seed}")
    items: list[Item] = []
    for name in sorted(strata):
        members = sorted(strata[name], key=lambda r: str(r["entry_id"]))
        for row in rng.sample(members, quotas[name]):
            items.append(
                Item(
                    entry_id=str(row["entry_id"]),
                    source=str(row.get("source") or ""),
                    prediction=str(row["predicted"]),
                    reference=str(row.get("expected") or ""),
                    stratum=name,
                )
            )
    return Sample(
        sample_id=sample_id(card_hash, size, seed),
        card_hash=card_hash,
        size=size,
        seed=seed,
        stratified_by=by,
        strata={
            name: {"population": len(strata[name]), "drawn": quotas[name]}
            for name in sorted(strata)
        },
        items=tuple(items),
    )


def _strata(rows: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, list[Mapping[str, Any]]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    if any(row.get("difficulty") is not None for row in rows):
        for row in rows:
            difficulty = row.get("difficulty")
            name = "unrated" if difficulty is None else f"difficulty_{difficulty}"
            groups.setdefault(name, []).append(row)
        return "difficulty", groups
    ranked = sorted(rows, key=lambda r: (float(r.get("chrf_score") or 0.0), str(r["entry_id"])))
    for position, row in enumerate(ranked):
        third = min(2, position * 3 // len(ranked))
        groups.setdefault(("chrf_low", "chrf_mid", "chrf_high")[third], []).append(row)
    return "chrf_tercile", groups


def _quotas(sizes: Mapping[str, int], size: int) -> dict[str, int]:
    """Proportional allocation by largest remainders; every stratum gets one while n allows."""
    total = sum(sizes.values())
    if size >= total:
        return dict(sizes)
    exact = {name: size * count / total for name, count in sizes.items()}
    quotas = {name: min(sizes[name], int(value)) for name, value in exact.items()}
    for name in sorted(sizes, key=lambda k: sizes[k]):  # smallest strata first
        if quotas[name] == 0 and sum(quotas.values()) < size:
            quotas[name] = 1
    order = sorted(exact, key=lambda k: (-(exact[k] - int(exact[k])), k))
    while sum(quotas.values()) < size:
        for name in order:
            if quotas[name] < sizes[name] and sum(quotas.values()) < size:
                quotas[name] += 1
    while sum(quotas.values()) > size:  # the minimum of one can overshoot: trim the largest
        largest = max(quotas, key=lambda k: (quotas[k], k))
        quotas[largest] -= 1
    return quotas
