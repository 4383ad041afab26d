"""Convert the FLORES-200 devtest (eng_Latn, fra_Latn) into the benchmark spec's corpus envelope.

Writes corpora/eng-fra-flores-devtest.json and its mirror fra-eng-flores-devtest.json, so that
the shipped files can be rebuilt from the upstream release and compared byte for byte.
Usage: python scripts/convert_flores.py [--shared ../shared/data] [--out corpora]
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from converter_cli import REPO, base_parser, render

CONVERTED = "2026-11-30"
UPSTREAM_REPOSITORY = "https://github.com/Helsinki-NLP/OPUS-MT-testsets"
UPSTREAM_COMMIT = "ac0f19c0be3cb4e0d9450fcb2d7a9847c4bdd180"
UPSTREAM_FOLDER = "datasets/facebook/flores/flores200_dataset/devtest"
LINES = 1012

#: FLORES source domains onto the spec's 16 codes (§2.7). Wikivoyage travel guides fit none
#: of them, so they stay unlabelled rather than being forced into a wrong code.
DOMAINS: dict[str, str | None] = {"wikinews": "news", "wikibooks": "edu", "wikivoyage": None}

LANGUAGES = {
    "eng": ("eng_Latn", "en", "English"),
    "fra": ("fra_Latn", "fr", "French"),
}

ATTRIBUTION = (
    "FLORES-200 devtest: NLLB Team et al. (2022), 'No Language Left Behind: Scaling "
    "Human-Centered Machine Translation', arXiv:2207.04672; Goyal et al. (2022), 'The FLORES-101 "
    "Evaluation Benchmark for Low-Resource and Multilingual Machine Translation', TACL 10. "
    "Licensed CC-BY-SA-4.0, as redistributed by Helsinki-NLP/OPUS-MT-testsets at commit "
    f"{UPSTREAM_COMMIT}. Changed by pytest-mteval: converted to the corpus envelope with "
    "scripts/convert_flores.py (sentence text unchanged; metadata columns moved into "
    "entries[].metadata; domains mapped onto the spec's codes). ShareAlike: adaptations of this "
    "file must stay under CC-BY-SA-4.0."
)


def split_lines(path: Path, count: int) -> list[str]:
    """The file's lines; refuse anything that would silently shift the line alignment."""
    text = path.read_text(encoding="utf-8")
    if "\r" in text or not text.endswith("\n"):
        raise SystemExit(f"{path}: expected LF line endings and a final newline")
    lines = text[:-1].split("\n")
    if len(lines) != count or any(not line.strip() for line in lines):
        raise SystemExit(f"{path}: expected {count} non-empty lines, found {len(lines)}")
    return lines


def read_metadata(path: Path) -> list[dict[str, Any]]:
    """The devtest metadata rows (URL, domain, topic, has_image, has_hyperlink), in line order."""
    rows = [line.split("\t") for line in split_lines(path, LINES + 1)]
    header, body = rows[0], rows[1:]
    if header != ["URL", "domain", "topic", "has_image", "has_hyperlink"]:
        raise SystemExit(f"{path}: unexpected header {header}")
    result = []
    for number, row in enumerate(body, start=2):
        if len(row) != 5 or row[1] not in DOMAINS or {row[3], row[4]} - {"yes", "no"}:
            raise SystemExit(f"{path}: line {number} does not fit the expected columns")
        result.append(
            {
                "flores_domain": row[1],
                "topic": row[2],
                "url": row[0],
                "has_image": row[3] == "yes",
                "has_hyperlink": row[4] == "yes",
            }
        )
    return result


def build(folder: Path, source: str, target: str) -> dict[str, Any]:
    """The whole corpus document for one direction; ids are the 1-based devtest line numbers."""
    src_file, src_code, src_name = LANGUAGES[source]
    tgt_file, tgt_code, tgt_name = LANGUAGES[target]
    names = [f"{src_file}.devtest", f"{tgt_file}.devtest", "metadata_devtest.tsv"]
    sources = split_lines(folder / names[0], LINES)
    references = split_lines(folder / names[1], LINES)
    metadata = read_metadata(folder / names[2])
    entries: list[dict[str, Any]] = [
        {
            "id": line,
            "source": src,
            "reference": ref,
            "segment": "development",
            "difficulty": None,
            "provenance": "corpus",
            "register": None,
            "domain": DOMAINS[meta["flores_domain"]],
            "variants": [],
            "metadata": {"flores_line": line, **meta},
        }
        for line, (src, ref, meta) in enumerate(
            zip(sources, references, metadata, strict=True), start=1
        )
    ]
    dataset = {
        "id": f"flores200-devtest-{source}-{target}",
        "version": "1.0.0",
        "language_pair": f"{src_code.upper()}→{tgt_code.upper()}",
        "source_language": src_code,
        "target_language": tgt_code,
        "source_language_name": src_name,
        "target_language_name": tgt_name,
        "created": CONVERTED,
        "license": "CC-BY-SA-4.0",
        "provenance": ["corpus"],
        "attribution": ATTRIBUTION,
        "source": {
            "repository": UPSTREAM_REPOSITORY,
            "commit": UPSTREAM_COMMIT,
            "files": {
                f"{UPSTREAM_FOLDER}/{name}": hashlib.sha256(
                    (folder / name).read_bytes()
                ).hexdigest()
                for name in names
            },
            "converter": "scripts/convert_flores.py",
        },
    }
    return {"dataset": dataset, "entries": entries}


def main(argv: list[str] | None = None) -> None:
    parser = base_parser(__doc__.splitlines()[0], REPO / "corpora")
    args = parser.parse_args(argv)
    folder = args.shared / "flores200-devtest"
    args.out.mkdir(parents=True, exist_ok=True)
    for source, target in (("eng", "fra"), ("fra", "eng")):
        path = args.out / f"{source}-{target}-flores-devtest.json"
        path.write_bytes(render(build(folder, source, target)))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
