"""What a run cost (benchmark spec §3.5) and what it will cost (§10 dry-run estimates).

Speed (tokens per second, entries per minute) is computed with the other scores in
``aggregate.speed_scores``, from the same per-entry usage.

Pure arithmetic over plain data: per-entry records in, run card fields out. An unknown price
stays unknown all the way up (None with a note), because a total of 0 would read as "free".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mteval.llm.pricing import PriceTable
from pytest_mteval.methods.protocol import Usage

TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")

#: Dry-run heuristic without a tokenizer: ~4 UTF-8 bytes per token holds for English with
#: BPE tokenizers; non-Latin scripts take more bytes per character, which this partly tracks.
BYTES_PER_TOKEN = 4.0
#: Per-message framing tokens of chat formats (role markers, separators).
MESSAGE_OVERHEAD_TOKENS = 4
#: Output tokens per source token: targets in low-resource, morphologically rich languages
#: tokenize worse than English, so the estimate leans high rather than low.
OUTPUT_RATIO = 2.0
#: Extra prompt tokens per retry for the feedback message (FST-gated methods).
FEEDBACK_TOKENS = 40


@dataclass(frozen=True)
class Call:
    """One paid request as a method saw it: reported usage, reported cost, reported model."""

    usage: Usage
    reported_cost_usd: float | None = None
    model_id: str | None = None


@dataclass(frozen=True)
class EntryCost:
    """An entry's cost over all of its calls, and where the number came from."""

    cost_usd: float | None
    source: str | None
    note: str | None = None


def sum_usage(usages: Iterable[Mapping[str, Any]]) -> Usage:
    """Token counts summed field by field; empty when no usage was known at all."""
    total = dict.fromkeys(TOKEN_FIELDS, 0)
    seen = False
    for usage in usages:
        if not usage:
            continue
        seen = True
        for name in TOKEN_FIELDS:
            total[name] += int(usage.get(name, 0) or 0)
    return Usage(**total) if seen else Usage()  # type: ignore[typeddict-item]


def entry_cost(calls: Sequence[Call], table: PriceTable, model: str | None) -> EntryCost:
    """The endpoint's reported cost where given (it is what was billed), else the price table.

    None as soon as one call's cost is unknown: a partial sum would understate the bill.
    """
    total = 0.0
    sources: set[str] = set()
    for call in calls:
        if call.reported_cost_usd is not None:
            total += call.reported_cost_usd
            sources.add("endpoint")
            continue
        cost = table.cost_usd(call.usage, model, call.model_id)
        if cost is None:
            reason = "no usage reported" if not call.usage else f"no price for {model!r}"
            return EntryCost(None, None, f"cost unknown: {reason} ({table.origin})")
        total += cost
        sources.add("price_table")
    if not sources:
        return EntryCost(None, None)  # nothing came back, so nothing is known to be billed
    return EntryCost(total, "+".join(sorted(sources)))


def run_totals(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run card's ``totals`` block (§3.5) from per-entry records.

    An entry counts as billed when it reports tokens or a cost, errored or not (an empty
    answer is still paid for). If any billed entry has no cost, or none is billed at all (a
    replayed or human method), the total is None and ``cost_note`` says why.
    """
    usage = sum_usage(r.get("usage") or {} for r in records)
    totals: dict[str, Any] = {name: usage.get(name, 0) for name in TOKEN_FIELDS}
    billed = [r for r in records if _is_billed(r)]
    unpriced = [r for r in billed if r.get("cost_usd") is None]
    cost: float | None = None
    note = None
    if not billed:
        note = "no entry reported token usage or a cost"
    elif unpriced:
        note = (
            f"cost unknown for {len(unpriced)} of {len(billed)} entries with token usage "
            "(no price for the model: pass a price file)"
        )
    else:
        cost = math.fsum(float(r["cost_usd"]) for r in billed)
    source_chars = sum(len(str(r.get("source") or "")) for r in records)
    totals["total_cost_usd"] = cost
    totals["cost_per_entry_usd"] = _ratio(cost, len(records))
    totals["cost_per_source_char"] = _ratio(cost, source_chars)
    totals["cost_note"] = note
    return totals


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token estimate for dry runs (see BYTES_PER_TOKEN)."""
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def estimate_entry(source: str, system_prompt: str, calls: int = 1) -> Usage:
    """Estimated usage of one entry over ``calls`` requests; each retry resends the
    conversation so far plus a feedback message."""
    source_tokens = estimate_tokens(source)
    base_prompt = estimate_tokens(system_prompt) + source_tokens + 2 * MESSAGE_OVERHEAD_TOKENS
    completion = math.ceil(source_tokens * OUTPUT_RATIO) + MESSAGE_OVERHEAD_TOKENS
    prompt_total = 0
    for k in range(max(1, calls)):
        prompt_total += base_prompt + k * (
            completion + FEEDBACK_TOKENS + 2 * MESSAGE_OVERHEAD_TOKENS
        )
    return Usage(
        prompt_tokens=prompt_total,
        completion_tokens=completion * max(1, calls),
        reasoning_tokens=0,
        cached_tokens=0,
    )


def estimate_run(
    entries: Sequence[Mapping[str, Any]],
    system_prompt: str,
    table: PriceTable,
    model: str | None,
    calls_per_entry: int = 1,
) -> dict[str, Any]:
    """The dry run's figures (§10: entries x calls per entry x cost per call), per entry and
    in total; costs are None when the model has no price."""
    price = table.price_for(model)
    per_entry: list[dict[str, Any]] = []
    for entry in entries:
        usage = estimate_entry(str(entry.get("source", "")), system_prompt, calls_per_entry)
        per_entry.append(
            {
                "id": entry.get("id"),
                **usage,
                "cost_usd": None if price is None else price.cost_usd(usage),
            }
        )
    total = None if price is None else math.fsum(e["cost_usd"] for e in per_entry)
    return {
        "model": model,
        "entries": len(per_entry),
        "calls_per_entry": calls_per_entry,
        "prompt_tokens": sum(e["prompt_tokens"] for e in per_entry),
        "completion_tokens": sum(e["completion_tokens"] for e in per_entry),
        "estimated_cost_usd": total,
        "prices": table.origin,
        "cost_note": None if price is not None else f"no price for {model!r} in the price table",
        "per_entry": per_entry,
    }


def _is_billed(record: Mapping[str, Any]) -> bool:
    usage = record.get("usage") or {}
    tokens = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
    return tokens > 0 or record.get("cost_usd") is not None


def _ratio(cost: float | None, denominator: int) -> float | None:
    return None if cost is None or denominator == 0 else cost / denominator
