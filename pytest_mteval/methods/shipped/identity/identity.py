"""The floor: a 'translation' that copies the source through unchanged."""

from __future__ import annotations

from pytest_mteval import MethodEntry, MethodResult, RunConfig


class IdentityMethod:
    #: Local and free: re-running beats a disk cache.
    cacheable = False

    def preflight(self, config: RunConfig) -> None:
        """Nothing to check: no files, no service."""

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        return [
            {"id": e["id"], "predicted": e["source"], "latency_s": 0.0, "error": None}
            for e in entries
        ]
