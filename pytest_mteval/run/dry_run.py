"""``--mteval-dry-run``: what a run would cost (spec §10), estimated without calling anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_mteval.llm.cost import estimate_run
from pytest_mteval.llm.pricing import load_prices
from pytest_mteval.methods.protocol import DescribesPrompt
from pytest_mteval.run.batch_translation import method_view
from pytest_mteval.run.run_state import RunState

#: Dependency classes whose methods run on local resources only (method-interface spec).
_LOCAL_CLASSES = frozenset({"S", "O"})


def estimate(state: RunState) -> dict[str, Any]:
    """Token and cost estimate of the selected entries, from the method's own prompt."""
    method, config = state.method, state.run_config
    prompt = method.system_prompt(config) if isinstance(method, DescribesPrompt) else ""
    calls = getattr(method, "max_calls_per_entry", None)
    figures = estimate_run(
        [method_view(e) for e in state.corpus.entries],
        prompt,
        load_prices(config.method_args.get("prices")),
        config.model,
        int(calls(config)) if callable(calls) else 1,
    )
    manifest = state.source.manifest
    if manifest is not None and manifest.dependency_class in _LOCAL_CLASSES:
        # a method that runs on local resources only makes no paid call, whatever its model
        figures["estimated_cost_usd"] = 0.0
        figures["cost_note"] = f"dependency class {manifest.dependency_class}: no paid calls"
        for entry in figures["per_entry"]:
            entry["cost_usd"] = 0.0
    return figures


def estimate_lines(figures: dict[str, Any]) -> list[str]:
    cost = figures["estimated_cost_usd"]
    lines = [
        f"entries          {figures['entries']} (at most {figures['calls_per_entry']} calls each)",
        f"model            {figures['model']}",
        f"prompt tokens    ~{figures['prompt_tokens']}",
        f"completion tok.  ~{figures['completion_tokens']}",
        f"estimated cost   {'unknown' if cost is None else f'${cost:.4f}'}",
        f"prices           {figures['prices']}",
    ]
    if figures.get("cost_note"):
        lines.append(f"note             {figures['cost_note']}")
    lines.append("nothing was translated: this was a dry run")
    return lines


def write_estimate(path: Path, figures: dict[str, Any]) -> None:
    """The estimate as JSON, for a sweep that sums the estimates of its runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, ensure_ascii=False, indent=2), encoding="utf-8")
