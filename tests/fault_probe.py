"""A method whose args select a fault, for the fault-injection suite (tests/test_faults_*.py).

This file is copied into a test's method folder as the method's code, and imported by the
tests for its FAULTS table. Method args: ``fault=<name>`` and ``target=<entry id>`` (only
that entry's result, or that entry's batch, misbehaves); every other entry is answered with
its source upper-cased, exactly as a clean run answers it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

#: fault name -> (field path, wrong value, expected words in the entry's error)
FIELD_FAULTS: dict[str, tuple[str, Any, str]] = {
    "predicted-int": ("predicted", 42, "predicted must be a string, got int"),
    "predicted-list": ("predicted", ["x"], "predicted must be a string, got list"),
    "predicted-dict": ("predicted", {"a": 1}, "predicted must be a string, got dict"),
    "predicted-surrogate": ("predicted", "ok \ud800", "predicted is not valid Unicode"),
    "raw_predicted-int": ("raw_predicted", 5, "raw_predicted must be a string, got int"),
    "raw_predicted-surrogate": ("raw_predicted", "\udc80", "raw_predicted is not valid Unicode"),
    "error-int": ("error", 5, "error must be a string, got int"),
    "error-list": ("error", ["boom"], "error must be a string, got list"),
    "latency-str": ("latency_s", "fast", "latency_s must be a number, got str"),
    "latency-negative": ("latency_s", -1.0, "latency_s must not be negative, got float"),
    "latency-inf": ("latency_s", float("inf"), "latency_s must be a finite number, got float"),
    "latency-nan": ("latency_s", float("nan"), "latency_s must be a finite number, got float"),
    "latency-bool": ("latency_s", True, "latency_s must be a number, got bool"),
    "latency-list": ("latency_s", [1], "latency_s must be a number, got list"),
    "cost-str": ("cost_usd", "cheap", "cost_usd must be a number, got str"),
    "cost-negative": ("cost_usd", -100, "cost_usd must not be negative, got int"),
    "cost-inf": ("cost_usd", float("inf"), "cost_usd must be a finite number, got float"),
    "cost-dict": ("cost_usd", {"usd": 1}, "cost_usd must be a number, got dict"),
    "usage-str": ("usage", "lots", "usage must be an object, got str"),
    "usage-list": ("usage", [1, 2], "usage must be an object, got list"),
    "usage-int": ("usage", 5, "usage must be an object, got int"),
    "prompt_tokens-str": (
        "usage.prompt_tokens",
        "ten",
        "usage.prompt_tokens must be an integer, got str",
    ),
    "prompt_tokens-negative": (
        "usage.prompt_tokens",
        -3,
        "usage.prompt_tokens must not be negative, got int",
    ),
    "prompt_tokens-float": (
        "usage.prompt_tokens",
        1.5,
        "usage.prompt_tokens must be an integer, got float",
    ),
    "prompt_tokens-bool": (
        "usage.prompt_tokens",
        True,
        "usage.prompt_tokens must be an integer, got bool",
    ),
    "prompt_tokens-huge": ("usage.prompt_tokens", 10**30, "usage.prompt_tokens is too large"),
    "completion_tokens-str": (
        "usage.completion_tokens",
        "9",
        "usage.completion_tokens must be an integer, got str",
    ),
    "reasoning_tokens-negative": (
        "usage.reasoning_tokens",
        -1,
        "usage.reasoning_tokens must not be negative, got int",
    ),
    "cached_tokens-float": (
        "usage.cached_tokens",
        2.5,
        "usage.cached_tokens must be an integer, got float",
    ),
    "usage-extra-str": (
        "usage.total_tokens",
        "x",
        "usage.total_tokens must be an integer, got str",
    ),
    "tool_calls-int": ("tool_calls", 5, "tool_calls must be a list, got int"),
    "tool_calls-str": ("tool_calls", "call", "tool_calls must be a list, got str"),
    "tool_calls-items": ("tool_calls", [1], "tool_calls.0 must be an object, got int"),
    "tool_calls-dict": ("tool_calls", {"a": 1}, "tool_calls must be a list, got dict"),
    "tool_call_count-str": ("tool_call_count", "3", "tool_call_count must be an integer, got str"),
    "tool_call_count-negative": (
        "tool_call_count",
        -1,
        "tool_call_count must not be negative, got int",
    ),
    "metadata-list": ("metadata", [1], "metadata must be an object, got list"),
    "metadata-str": ("metadata", "meta", "metadata must be an object, got str"),
    "metadata-set": ("metadata", {"seen": {1, 2}}, "not plain JSON"),
    "metadata-surrogate": ("metadata", {"note": "\udc80"}, "metadata.note is not valid Unicode"),
    "metadata-nan": ("metadata", {"score": float("nan")}, "metadata.score"),
}

#: fault name -> expected words in the error of the faulty entry (or of its whole batch)
SHAPE_FAULTS: dict[str, str] = {
    "raise": "method raised RuntimeError: injected fault",
    "short": "method returned no result for entry id",
    "duplicate": "method returned 2 results for entry id",
    "wrong-id": "method returned no result for entry id",
    "non-dict": "method returned no result for entry id",
    "non-list": "method returned dict, not a list",
    "result-key-int": "a result key is int, not text",
}


def _set(result: dict[str, Any], path: str, value: Any) -> None:
    head, _, tail = path.partition(".")
    if tail:
        inner = result.setdefault(head, {})
        inner[tail] = value
    else:
        result[head] = value


#: fault name -> (what the method says about itself, expected words of the start refusal)
METHOD_FAULTS: dict[str, tuple[dict[str, Any], str]] = {
    "prompt-int": ({"prompt": 5}, "system_prompt must be a string, got int"),
    "prompt-surrogate": ({"prompt": "be \ud800"}, "system_prompt is not valid Unicode"),
    "tools-mixed": ({"tools": [1, None]}, "tools_enabled.0 must be a string, got int"),
    "tools-str": ({"tools": "fst"}, "tools_enabled must be a list, got str"),
    "card-fields-list": ({"fields": [1]}, "run_card_fields must be an object, got list"),
    "card-fields-set": ({"fields": {"seen": {1}}}, "run_card_fields is not plain JSON"),
}


class _HostileId:
    """An id whose text cannot be taken: the harness's own code fails on it."""

    def __str__(self) -> str:
        raise RuntimeError("hostile id")

    __hash__ = object.__hash__


class Probe:
    """Answers every entry with its source upper-cased, except where a fault is asked for."""

    tools_enabled: Any = None

    def prepare(self, config: Any) -> None:
        fault = config.method_args.get("fault", "")
        self._said = METHOD_FAULTS.get(fault, ({}, ""))[0]
        if "tools" in self._said:
            self.tools_enabled = self._said["tools"]

    def system_prompt(self, config: Any) -> Any:
        return self._said.get("prompt", "")

    def run_card_fields(self, config: Any) -> Any:
        return self._said.get("fields", {})

    async def translate(self, entries: list[dict[str, Any]], config: Any) -> Any:
        fault = config.method_args.get("fault", "")
        target = config.method_args.get("target", "")
        out: list[Any] = [
            {"id": e["id"], "predicted": e["source"].upper(), "latency_s": 0.01} for e in entries
        ]
        hit = [i for i, e in enumerate(entries) if target in ("*", str(e["id"]))]
        if not hit:
            return out
        at = hit[0]
        if fault in FIELD_FAULTS:
            path, value, _ = FIELD_FAULTS[fault]
            _set(out[at], path, value)
        elif fault == "raise":
            raise RuntimeError("injected fault")
        elif fault == "short":
            del out[at]
        elif fault == "duplicate":
            out.append(dict(out[at]))
        elif fault == "wrong-id":
            out[at]["id"] = "not-in-batch"
        elif fault == "non-dict":
            out[at] = "not a result"
        elif fault == "non-list":
            return {"results": out}
        elif fault == "hostile-id":
            out[at]["id"] = _HostileId()
        elif fault == "result-key-int":
            out[at][7] = "seven"
        elif fault == "exit-once":
            marker = Path(config.method_dir).parent / "crashed-once"
            if not marker.exists():
                marker.write_text("1", encoding="utf-8")
                os._exit(1)
        elif fault == "exit-always":
            os._exit(1)
        return out
