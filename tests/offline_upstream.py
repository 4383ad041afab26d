"""A folder laid out like ../shared/data, built from what a fresh clone has, so that every
converter in scripts/ runs without the shared folder.

Tatoeba and morphodict come from the copies in tests/data/converter-excerpts; the analyzer is
the committed one; the three FLORES-200 files are rebuilt line by line from the committed
eng->fra corpus (the conversion keeps every line and metadata column) and must hash to the
upstream sha256 the corpus pins, or this refuses to build them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXCERPTS = REPO / "tests" / "data" / "converter-excerpts"
FST = REPO / "corpora" / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"
FLORES = REPO / "corpora" / "eng-fra-flores-devtest.json"
METADATA_HEADER = ["URL", "domain", "topic", "has_image", "has_hyperlink"]


def flores_files(corpus: Path = FLORES) -> dict[str, bytes]:
    """eng_Latn.devtest, fra_Latn.devtest and metadata_devtest.tsv as the upstream has them."""
    document = json.loads(corpus.read_text(encoding="utf-8"))
    entries = document["entries"]
    rows = ["\t".join(METADATA_HEADER)]
    for entry in entries:
        meta = entry["metadata"]
        flags = ["yes" if meta[key] else "no" for key in ("has_image", "has_hyperlink")]
        rows.append("\t".join([meta["url"], meta["flores_domain"], meta["topic"], *flags]))
    files = {
        "eng_Latn.devtest": [entry["source"] for entry in entries],
        "fra_Latn.devtest": [entry["reference"] for entry in entries],
        "metadata_devtest.tsv": rows,
    }
    built = {name: ("\n".join(lines) + "\n").encode("utf-8") for name, lines in files.items()}
    pinned = {Path(p).name: d for p, d in document["dataset"]["source"]["files"].items()}
    for name, data in built.items():
        if hashlib.sha256(data).hexdigest() != pinned[name]:
            raise AssertionError(f"{name} rebuilt from {corpus.name} differs from the upstream")
    return built


def build(folder: Path) -> Path:
    """Lay the upstream files out under ``folder`` (created) and return it."""
    shutil.copytree(EXCERPTS, folder, dirs_exist_ok=True)
    (folder / "crk-fst").mkdir(exist_ok=True)
    shutil.copy(FST, folder / "crk-fst" / FST.name)
    (folder / "flores200-devtest").mkdir(exist_ok=True)
    for name, data in flores_files().items():
        (folder / "flores200-devtest" / name).write_bytes(data)
    return folder
