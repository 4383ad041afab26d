"""An example method whose one bad entry fails alone, not its whole batch.

An exception raised out of ``translate`` fails every entry of the batch. Catch it per entry
and return ``{"id": ..., "predicted": None, "error": "why"}`` for that entry instead: the
others keep their translations and scores, and the card and report name the entry's error.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_mteval import RunConfig


class PerEntryErrors:
    """Translates each entry on its own; an entry that raises becomes that entry's error."""

    async def translate(
        self, entries: list[dict[str, Any]], config: RunConfig
    ) -> list[dict[str, Any]]:
        answers = await asyncio.gather(
            *(self.translate_one(entry, config) for entry in entries), return_exceptions=True
        )
        results = []
        for entry, answer in zip(entries, answers, strict=True):
            if isinstance(answer, Exception):  # this entry only: its batch goes on
                error = f"{type(answer).__name__}: {answer}"
                results.append({"id": entry["id"], "predicted": None, "error": error})
            else:
                results.append({"id": entry["id"], "predicted": answer})
        return results

    async def translate_one(self, entry: dict[str, Any], config: RunConfig) -> str:
        """Stands for a real call (a model, a service); here it returns the source. Method
        arg ``fail`` lists entry ids that raise, to show what a bad entry does."""
        if str(entry["id"]) in str(config.method_args.get("fail", "")).split(","):
            raise ValueError(f"cannot translate entry {entry['id']}")
        return str(entry["source"])
