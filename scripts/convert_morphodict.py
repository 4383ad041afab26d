"""Convert morphodict's English -> Plains Cree search-quality sample into a vocabulary corpus,
and into the word list of the dictionary method (one parse, so both views select the same rows).

Each row of sample.csv is an English query with up to three hand-chosen Plains Cree dictionary
headwords: the first becomes the reference, the others acceptable variants. The references are
lemmas (dictionary headwords), not inflected translations, so the corpus tests vocabulary.
Usage: python scripts/convert_morphodict.py [--shared ../shared/data] [--out corpora]
       [--wordlist methods/dictionary/eng-crk.tsv]
"""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path
from typing import Any

from converter_cli import REPO, base_parser, render

CONVERTED = "2026-11-30"
UPSTREAM_REPOSITORY = "https://github.com/UAlbertaALTLab/morphodict"
UPSTREAM_COMMIT = "f9730fdd473f23220733172f32d664022bcb5f38"
UPSTREAM_PATH = "src/morphodict/search_quality/sample.csv"
HEADER = ["Query", "Nêhiyawêwin 1", "Nêhiyawêwin 2", "Nêhiyawêwin 3"]
#: Not "gold_standard" (spec §2.5 means verified by fluent speakers, which the source does not
#: record) and not "corpus" (no parallel text): dictionary headwords chosen by the dictionary's
#: makers as the best results for each query.
PROVENANCE = "dictionary"
#: SRO writes long e as ê and has no short e; three source headwords lack the circumflex.
PLAIN_E_NOTE = (
    "A headword here is spelled with a plain 'e', which Standard Roman Orthography does not use "
    "(e is always long, ê); kept as in the source. The strict analyzer rejects that spelling."
)
ATTRIBUTION = (
    "UAlbertaALTLab/morphodict (itwêwina dictionary), "
    f"{UPSTREAM_PATH} at commit {UPSTREAM_COMMIT}: search-quality sample written by "
    "ALTLab staff. Apache-2.0; Copyright © 2019–2021 University of Alberta. Converted to the "
    "corpus envelope by pytest-mteval scripts/convert_morphodict.py (first headword -> reference, "
    "other headwords -> variants, surrounding whitespace trimmed)."
)


def read_rows(path: Path) -> list[tuple[int, str, list[str]]]:
    """(data row number from 1, English query, non-empty headwords) for every CSV row."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    if rows[0] != HEADER:
        raise SystemExit(f"{path}: unexpected header {rows[0]}")
    result = []
    for number, row in enumerate(rows[1:], start=1):
        headwords = [cell.strip() for cell in row[1:] if cell.strip()]
        if not row[0].strip() or not headwords:
            raise SystemExit(f"{path}: data row {number} has no query or no headword")
        result.append((number, row[0].strip(), headwords))
    return result


def is_cree_query(query: str, headwords: list[str]) -> bool:
    """A query that is itself one of its Cree headwords is a Cree search, not an English one."""
    return query in headwords


def build_entry(number: int, query: str, headwords: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": number,
        "source": query,
        "reference": headwords[0],
        "segment": "development",
        "difficulty": 1,
        "provenance": PROVENANCE,
        "register": None,
        "domain": None,
        "variants": headwords[1:],
        "metadata": {"sample_row": number},
    }
    if any("e" in headword for headword in headwords):
        entry["notes"] = PLAIN_E_NOTE
    return entry


def build(path: Path) -> dict[str, Any]:
    """The whole corpus document; ids are the data row numbers of sample.csv (header excluded)."""
    rows = read_rows(path)
    entries = [build_entry(*row) for row in rows if not is_cree_query(row[1], row[2])]
    dataset = {
        "id": "morphodict-eng-crk-vocab",
        "version": "1.0.0",
        "language_pair": "EN→CRK",
        "source_language": "en",
        "target_language": "crk",
        "source_language_name": "English",
        "target_language_name": "Plains Cree",
        "created": CONVERTED,
        "license": "Apache-2.0",
        "provenance": [PROVENANCE],
        "language_resources": "resources/crk/crk.json",
        "attribution": ATTRIBUTION,
        "source": {
            "repository": UPSTREAM_REPOSITORY,
            "commit": UPSTREAM_COMMIT,
            "files": {UPSTREAM_PATH: hashlib.sha256(path.read_bytes()).hexdigest()},
            "skipped_rows": [row[0] for row in rows if is_cree_query(row[1], row[2])],
            "converter": "scripts/convert_morphodict.py",
        },
    }
    return {"dataset": dataset, "entries": entries}


def wordlist(path: Path) -> str:
    """english<TAB>cree for every single-word English query, keyed in lower case without the
    quotes some search queries carry; the first headword of the first such row wins."""
    table: dict[str, str] = {}
    for _, query, headwords in read_rows(path):
        key = query.strip("'\"").lower()
        if " " in key or is_cree_query(query, headwords):
            continue
        if table.setdefault(key, headwords[0]) != headwords[0]:
            raise SystemExit(f"{path}: {key!r} has two different first headwords")
    header = (
        f"# english<TAB>cree, from {UPSTREAM_REPOSITORY} {UPSTREAM_PATH} @ {UPSTREAM_COMMIT}\n"
        "# Apache-2.0; written by scripts/convert_morphodict.py; see WORDLIST.md\n"
    )
    return header + "".join(f"{key}\t{table[key]}\n" for key in sorted(table))


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(__doc__.splitlines()[0], REPO / "corpora")
    parser.add_argument(
        "--wordlist",
        type=Path,
        default=REPO / "methods" / "dictionary" / "eng-crk.tsv",
        help="word list output (default: methods/dictionary/eng-crk.tsv)",
    )
    args = parser.parse_args(argv)
    sample = args.shared / "crk-lexical-morphodict" / "sample.csv"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "eng-crk-morphodict-vocab.json"
    path.write_bytes(render(build(sample)))
    args.wordlist.parent.mkdir(parents=True, exist_ok=True)
    args.wordlist.write_bytes(wordlist(sample).encode("utf-8"))
    print(f"wrote {path} and {args.wordlist}")


if __name__ == "__main__":
    main()
