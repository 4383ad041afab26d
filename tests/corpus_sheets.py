"""A corpus that meets every §11.1 minimum, made the linguist's way: the real Tatoeba eng-guj
sheet imported, linted, and the contamination lint names fixed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import DATA

from pytest_mteval.corpus_tools.importer import ImportOptions, import_corpus, write_document
from pytest_mteval.corpus_tools.lint import lint

GUJ = DATA / "corpus-tools" / "eng-guj-tatoeba-120.csv"
GUJ_OPTIONS = ImportOptions(
    inputs=(GUJ,),
    columns={"source": ("English",), "reference": ("Gujarati",)},
    envelope={
        "id": "eng-guj-tatoeba-test",
        "source_language": "en",
        "target_language": "gu",
        "license": "LicenseRef-CC-BY-2.0-FR",
        "consent": "tests/data/corpus-tools/SOURCE.md (a fixture: Tatoeba's licence)",
    },
    defaults={"provenance": "corpus"},
)


def fix_contamination(document: dict[str, Any], findings: list[dict[str, Any]]) -> int:
    """Put every entry of a contamination finding in gold_standard; how many moved."""
    named = {i for f in findings if f["code"] == "contamination" for i in f["entry_ids"]}
    moved = 0
    for entry in document["entries"]:
        if str(entry["id"]) in named and entry["segment"] != "gold_standard":
            entry["segment"] = "gold_standard"
            moved += 1
    return moved


def ready_corpus(folder: Path) -> Path:
    """The eng-guj sheet imported and fixed until lint passes."""
    path = folder / "eng-guj.json"
    document = import_corpus(GUJ_OPTIONS).document
    write_document(document, path)
    findings = lint(path).as_json()["findings"]
    fix_contamination(document, findings)
    write_document(document, path)
    return path


def read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
