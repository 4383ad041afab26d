"""Word-by-word lookup in a bilingual word list: the simplest self-contained (class S)
baseline a low-resource language can have, and a reminder of what it cannot do (morphology,
word order)."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_mteval import MethodEntry, MethodResult, RunConfig

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_BUNDLED = Path(__file__).with_name("eng-crk.tsv")


def read_wordlist(path: Path) -> dict[str, str]:
    """source<TAB>target lines; the first target given for a source word wins."""
    table: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        source, sep, target = line.partition("\t")
        if not sep or not target.strip():
            raise ValueError(f"{path}: line {number}: expected source<TAB>target")
        table.setdefault(source.strip().lower(), target.strip())
    return table


class DictionaryMethod:
    #: Local and free: re-running beats a disk cache.
    cacheable = False

    def __init__(self) -> None:
        self._tables: dict[Path, dict[str, str]] = {}

    def table(self, config: RunConfig) -> dict[str, str]:
        path = Path(config.method_args.get("wordlist") or _BUNDLED)
        table = self._tables.get(path)
        if table is None:
            try:
                table = self._tables[path] = read_wordlist(path)
            except OSError as exc:
                raise ValueError(
                    f"dictionary: cannot read word list {path}: {exc.strerror}"
                ) from None
        return table

    def preflight(self, config: RunConfig) -> None:
        """The word list is readable and well formed."""
        self.table(config)

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        table = self.table(config)
        results: list[MethodResult] = []
        for entry in entries:
            words = _WORD.findall(entry["source"])
            looked_up = [table.get(word.lower(), word) for word in words]
            unknown = [w for w in words if w.lower() not in table]
            results.append(
                {
                    "id": entry["id"],
                    "predicted": " ".join(looked_up),
                    "latency_s": 0.0,
                    "error": None,
                    "tool_calls": [{"tool": "wordlist_lookup", "words": len(words)}],
                    "tool_call_count": 1,
                    "metadata": {"unknown_words": unknown},
                }
            )
        return results
