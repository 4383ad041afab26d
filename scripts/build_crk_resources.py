"""Build corpora/resources/crk/: the strict Plains Cree analyzer (copied byte for byte) and
crk.json, the language-resources file that corpora point to with dataset.language_resources.

The orthography's character set is derived from real data, not typed by hand: the characters
of the morphodict sample's Cree headwords that the strict analyzer itself accepts as normative.
Usage: python scripts/build_crk_resources.py [--shared ../shared/data] [--out corpora/resources/crk]
"""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path
from typing import Any

import hfst
from converter_cli import REPO, base_parser, render

FST_NAME = "crk-strict-analyzer-for-dictionary.hfstol"
#: The sha256 recorded when the file was taken from morphodict @4187cb44 (shared SOURCE.md).
FST_SHA256 = "489ae191edb03c76ecd7a3260a33eb331ebf2701dae18842009ac45efe27a54e"


def copy_fst(shared: Path, out: Path) -> bytes:
    """Copy the analyzer unchanged, refusing a file that is not the one the notice describes."""
    data = (shared / "crk-fst" / FST_NAME).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != FST_SHA256:
        raise SystemExit(f"{FST_NAME}: sha256 {digest} is not the pinned {FST_SHA256}")
    (out / FST_NAME).write_bytes(data)
    return data


def headword_tokens(sample: Path) -> list[str]:
    """Every whitespace-separated word of every Cree headword cell in sample.csv."""
    rows = list(csv.reader(io.StringIO(sample.read_text(encoding="utf-8"), newline="")))
    return sorted({word for row in rows[1:] for cell in row[1:] for word in cell.split()})


def orthography_characters(fst_path: Path, words: list[str]) -> str:
    """The characters of the words the strict analyzer accepts; letters first, then the rest."""
    analyzer = hfst.HfstInputStream(str(fst_path)).read()
    accepted = [word for word in words if analyzer.lookup(word)]
    characters = {char for word in accepted for char in word}
    return "".join(sorted(characters, key=lambda char: (not char.isalpha(), char)))


def build(shared: Path, out: Path) -> dict[str, Any]:
    data = copy_fst(shared, out)
    words = headword_tokens(shared / "crk-lexical-morphodict" / "sample.csv")
    return {
        "language": "crk",
        "fst": FST_NAME,
        "fst_license": "AGPL-3.0-or-later",
        "fst_sha256": hashlib.sha256(data).hexdigest(),
        "orthography": {
            "name": "Standard Roman Orthography",
            "characters": orthography_characters(out / FST_NAME, words),
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(__doc__.splitlines()[0], REPO / "corpora" / "resources" / "crk")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    document = build(args.shared, args.out)
    path = args.out / "crk.json"
    path.write_bytes(render(document))
    print(f"wrote {path} and {args.out / FST_NAME}")


if __name__ == "__main__":
    main()
