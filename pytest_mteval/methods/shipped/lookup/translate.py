"""Word-list lookup, the Python entry point of a method that ships two (translate.js is the
other): both tokenize by one rule written out in README.md, so both give the same output."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from pytest_mteval import MethodEntry, MethodResult, RunConfig

BUNDLED = Path(__file__).with_name("eng-crk.tsv")
JOINERS = "'’-"
#: Over the text's shape (w: letter or mark, j: joiner, space: anything else).
_WORD_SHAPE = re.compile(r"w+(?:jw+)*")


def _shape(char: str) -> str:
    if unicodedata.category(char)[0] in "LM":
        return "w"
    return "j" if char in JOINERS else " "


def words(text: str) -> list[str]:
    """Runs of letters and marks (Unicode categories L and M), joined by single internal
    apostrophes or hyphens."""
    shape = "".join(map(_shape, text))
    return [text[m.start() : m.end()] for m in _WORD_SHAPE.finditer(shape)]


def read_wordlist(path: Path) -> dict[str, str]:
    """source<TAB>target lines (``#`` starts a comment); the first target of a word wins."""
    table: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        source, sep, target = line.partition("\t")
        if not sep or not target.strip():
            raise ValueError(f"{path}: line {number}: expected source<TAB>target")
        table.setdefault(source.strip().lower(), target.strip())
    return table


class LookupMethod:
    #: Local and free: re-running beats a disk cache.
    cacheable = False

    def __init__(self) -> None:
        self.table: dict[str, str] = {}

    def prepare(self, config: RunConfig) -> None:
        self.table = read_wordlist(Path(config.method_args.get("wordlist") or BUNDLED))

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        results: list[MethodResult] = []
        for entry in entries:
            found = words(entry["source"])
            unknown = [w for w in found if w.lower() not in self.table]
            results.append(
                {
                    "id": entry["id"],
                    "predicted": " ".join(self.table.get(w.lower(), w) for w in found),
                    "tool_calls": [{"tool": "wordlist_lookup", "words": len(found)}],
                    "tool_call_count": 1,
                    "metadata": {"unknown_words": unknown},
                }
            )
        return results
