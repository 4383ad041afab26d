"""``mteval corpus rotate CORPUS --seed N --move K -o NEW``: spec §9.3.2, rotating entries
between segments without notice to method authors.

K entries chosen with the seed move from development to gold_standard and K others the other
way, so each segment keeps its size (and the §11.1 minimums it met). Entries whose source has
a near-duplicate anywhere in the corpus stay put, so rotation creates no contamination. The
result is a new dataset version: the version is bumped, and ``dataset.rotations`` records the
seed, the previous version and sha256, and the moved ids, so the rotation can be audited and
replayed (the same seed on the same file gives the same bytes). A gate or leaderboard then
sees another dataset (another sha256 and version) and refuses to compare across it unless
told to.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import CorpusError, load_corpus, read_document
from pytest_mteval.corpus_tools.checks import near_key
from pytest_mteval.corpus_tools.importer import write_document

PUBLIC, SECRET = "development", "gold_standard"


def next_version(version: str) -> str:
    """1.0.0 -> 1.0.1, 0.1 -> 0.2; a version not ending in a number gets ".1"."""
    match = re.search(r"(\d+)(?!.*\d)", version)
    if match is None:
        return f"{version}.1"
    return version[: match.start()] + str(int(match.group()) + 1) + version[match.end() :]


def rotate(
    path: Path, seed: int, move: int, version: str | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The rotated document and the ids moved to gold_standard and to development."""
    corpus = load_corpus(path)
    raw, _, _, _ = read_document(path)
    if move < 1:
        raise CorpusError(f"--move must be at least 1, got {move}")
    # An entry whose source has a near-duplicate stays put: moving one of a pair would put the
    # same sentence in a public and a secret segment, the contamination lint reports.
    groups = Counter(near_key(e.source) for e in corpus.entries)
    pools = {
        segment: [
            e.key
            for e in corpus.entries
            if e.segment == segment and groups[near_key(e.source)] == 1
        ]
        for segment in (PUBLIC, SECRET)
    }
    for segment, ids in pools.items():
        if len(ids) < move:
            raise CorpusError(
                f"{path}: cannot move {move} entries out of {segment}: it has {len(ids)} "
                "(entries with a near-duplicate source elsewhere stay put)"
            )
    rng = random.Random(seed)
    order = {e.key: i for i, e in enumerate(corpus.entries)}
    to_secret = sorted(rng.sample(pools[PUBLIC], move), key=order.__getitem__)
    to_public = sorted(rng.sample(pools[SECRET], move), key=order.__getitem__)
    target = {**dict.fromkeys(to_secret, SECRET), **dict.fromkeys(to_public, PUBLIC)}
    entries = [
        {**entry, "segment": target[str(entry["id"])]} if str(entry["id"]) in target else entry
        for entry in raw["entries"]
    ]
    dataset = dict(raw["dataset"])
    dataset["version"] = version or next_version(corpus.dataset.version)
    dataset["rotations"] = [
        *(dataset.get("rotations") or []),
        {
            "seed": seed,
            "move": move,
            "from_version": corpus.dataset.version,
            "from_sha256": corpus.sha256,
            "to_gold_standard": [_original_id(corpus, k) for k in to_secret],
            "to_development": [_original_id(corpus, k) for k in to_public],
        },
    ]
    return {**raw, "dataset": dataset, "entries": entries}, to_secret, to_public


def _original_id(corpus: Any, key: str) -> int | str:
    """The id as the file spells it (an integer stays an integer)."""
    for entry in corpus.entries:
        if entry.key == key:
            identifier: int | str = entry.id
            return identifier
    raise KeyError(key)


def run_rotate(path: Path, seed: int, move: int, output: Path, version: str | None) -> int:
    try:
        if output.resolve() == path.resolve():
            raise CorpusError(f"{output}: write the new version to another file (-o)")
        document, to_secret, to_public = rotate(path, seed, move, version)
        digest = write_document(document, output)
    except CorpusError as exc:
        print(f"mteval corpus rotate: {exc}")
        return 2
    except OSError as exc:
        print(f"mteval corpus rotate: {output}: cannot write: {exc.strerror or exc}")
        return 2
    print(
        f"{output}: version {document['dataset']['version']}, sha256 {digest}: moved "
        f"{len(to_secret)} entries {PUBLIC} -> {SECRET} and {len(to_public)} {SECRET} -> "
        f"{PUBLIC} (seed {seed}); recorded in dataset.rotations"
    )
    return 0
