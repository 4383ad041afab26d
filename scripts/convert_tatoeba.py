"""Convert curated Tatoeba corpora from the reference harness's shape into the spec's envelope.

The original string ids (e.g. "tatoeba_953265") are kept: recorded model outputs in the
upstream run reports are matched to entries by id. Every Tatoeba sentence keeps its id and URL
in entries[].metadata, which is what CC-BY attribution of each sentence needs.
Usage: python scripts/convert_tatoeba.py [--shared ../shared/data] [--out corpora] [PAIR ...]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from converter_cli import REPO, base_parser, render

UPSTREAM_REPOSITORY = "https://github.com/gamedaysuits/gds-mt-eval-harness"
UPSTREAM_COMMIT = "ce91520c5ec80129d60026405bc98c6ae8415c4a"
SENTENCE_URL = "https://tatoeba.org/en/sentences/show/"
#: SPDX has no identifier for the French port of CC BY 2.0, hence a LicenseRef (SPDX §10.1).
LICENSE = "LicenseRef-CC-BY-2.0-FR"
ATTRIBUTION = (
    "Tatoeba (tatoeba.org), CC-BY 2.0 FR; labels by gamedaysuits/gds-mt-eval-harness "
    "(Apache-2.0). Sentence pairs by Tatoeba contributors: each entry's metadata.tatoeba gives "
    "both sentence ids and URLs, where the authors are named. Taken from "
    f"gamedaysuits/gds-mt-eval-harness datasets/curated/ at commit {UPSTREAM_COMMIT}; converted "
    "to the corpus envelope by pytest-mteval scripts/convert_tatoeba.py (text and labels "
    "unchanged)."
)
#: ISO 639-3 (the harness's codes) -> BCP 47 (the spec's codes: the shortest subtag).
BCP47 = {"eng": "en", "sme": "se", "sna": "sn"}
LABEL_KEYS = (
    "classification_confidence",
    "difficulty_word_count",
    "difficulty_estimated_clauses",
    "difficulty_avg_word_length",
)


def convert_entry(raw: dict[str, Any], segment: str) -> dict[str, Any]:
    """One entry: provenance object -> the spec's string tag, sentence ids kept in metadata."""
    meta = raw["metadata"]
    origin = meta["provenance"]
    if raw["provenance"]["source_id"] != origin["source_id"] or origin["source_name"] != "tatoeba":
        raise SystemExit(f"entry {raw['id']}: inconsistent provenance {raw['provenance']}")
    if raw["id"] != f"tatoeba_{origin['source_id']}":
        raise SystemExit(f"entry {raw['id']}: id does not name its Tatoeba sentence")
    source_id, target_id = origin["source_id"], meta["target_sentence_id"]
    return {
        "id": raw["id"],
        "source": raw["source"],
        "reference": raw["reference"],
        "segment": segment,
        "difficulty": raw["difficulty"],
        "provenance": "corpus",
        "register": raw["register"],
        "domain": raw["domain"],
        "variants": [],
        "metadata": {
            "tatoeba": {
                "source_sentence_id": source_id,
                "source_url": SENTENCE_URL + source_id,
                "target_sentence_id": target_id,
                "target_url": SENTENCE_URL + target_id,
                "license_label": origin["license"],
            },
            "harness_labels": {key: meta[key] for key in LABEL_KEYS},
        },
    }


def build(path: Path) -> dict[str, Any]:
    """The whole corpus document converted from one harness-shaped file."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    pair = raw["language_pair"]
    entries = [convert_entry(entry, raw["segment"]) for entry in raw["entries"]]
    if len(entries) != raw["entry_count"]:
        raise SystemExit(f"{path}: entry_count says {raw['entry_count']}, found {len(entries)}")
    source, target = BCP47[pair["source"]], BCP47[pair["target"]]
    dataset = {
        "id": raw["corpus_id"],
        "version": raw["version"],
        "language_pair": f"{source.upper()}→{target.upper()}",
        "source_language": source,
        "target_language": target,
        "source_language_name": pair["source_name"],
        "target_language_name": pair["target_name"],
        "created": raw["created"][:10],
        "license": LICENSE,
        "provenance": ["corpus"],
        "attribution": ATTRIBUTION,
        "source": {
            "repository": UPSTREAM_REPOSITORY,
            "commit": UPSTREAM_COMMIT,
            "files": {
                f"datasets/curated/{path.name}": hashlib.sha256(path.read_bytes()).hexdigest()
            },
            "created": raw["created"],
            "builder": raw["provenance"],
            "converter": "scripts/convert_tatoeba.py",
        },
    }
    return {"dataset": dataset, "entries": entries}


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(__doc__.splitlines()[0], REPO / "corpora")
    parser.add_argument("pairs", nargs="*", default=["eng-sme", "eng-sna"], help="e.g. eng-sme")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for pair in args.pairs:
        document = build(args.shared / "tatoeba-curated" / f"{pair}-dev-v1.json")
        path = args.out / f"{pair}-tatoeba-dev.json"
        path.write_bytes(render(document))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
