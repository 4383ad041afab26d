"""Replay recorded predictions, so a past run (or another harness's run) can be re-scored,
compared and gated offline, without paying for a single model call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_mteval import MethodEntry, MethodResult, RunConfig


class ReplayMethod:
    #: Local and free: re-running beats a disk cache.
    cacheable = False

    def __init__(self) -> None:
        self._loaded: tuple[str, dict[str, dict[str, Any]]] | None = None

    def preflight(self, config: RunConfig) -> None:
        """The predictions file is named, readable and well formed."""
        self._recordings(config)

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        recorded = self._recordings(config)
        results: list[MethodResult] = []
        for entry in entries:
            found = recorded.get(str(entry["id"]))
            if found is None:
                results.append(
                    {"id": entry["id"], "predicted": None, "error": "no recorded prediction"}
                )
                continue
            results.append(
                {
                    "id": entry["id"],
                    "predicted": found.get("predicted"),
                    "raw_predicted": found.get("raw_predicted", found.get("predicted")),
                    "latency_s": found.get("latency_s"),
                    "cost_usd": found.get("cost_usd"),
                    "error": found.get("error"),
                    "tool_call_count": int(found.get("tool_call_count") or 0),
                    "metadata": {"replayed_from": self._loaded[0] if self._loaded else ""},
                }
            )
        return results

    def _recordings(self, config: RunConfig) -> dict[str, dict[str, Any]]:
        raw_path = config.method_args.get("predictions")
        if not raw_path:
            raise ValueError("replay needs --mteval-method-arg predictions=PATH")
        if self._loaded is None or self._loaded[0] != raw_path:
            try:
                self._loaded = (raw_path, read_predictions(Path(raw_path)))
            except OSError as exc:
                raise ValueError(
                    f"replay: cannot read predictions {raw_path}: {exc.strerror}"
                ) from None
        return self._loaded[1]


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """Predictions keyed by id as text, from JSONL or a reference-harness report."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("{") and '"entries"' in text[:200_000]:
        try:
            report = json.loads(text)
        except json.JSONDecodeError:
            report = None
        if isinstance(report, dict) and isinstance(report.get("entries"), list):
            return {str(e["id"]): e for e in report["entries"] if isinstance(e, dict)}
    out: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: line {number}: invalid JSON: {exc.msg}") from None
        if not isinstance(row, dict) or "id" not in row:
            raise ValueError(f"{path}: line {number}: expected an object with 'id'")
        out[str(row["id"])] = row
    return out
