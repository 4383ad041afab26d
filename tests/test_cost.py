"""Prices, per-entry cost, run totals (§3.5) and the dry-run estimate (§10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mteval.llm.cost import (
    Call,
    entry_cost,
    estimate_entry,
    estimate_run,
    estimate_tokens,
    run_totals,
    sum_usage,
)
from pytest_mteval.llm.pricing import Price, PriceError, PriceTable, load_prices
from pytest_mteval.methods.protocol import Usage

SONNET = Price(input=3.0, output=15.0, cached_input=0.3)


def usage(prompt: int, completion: int, reasoning: int = 0, cached: int = 0) -> Usage:
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        reasoning_tokens=reasoning,
        cached_tokens=cached,
    )


def test_price_charges_cached_tokens_at_the_cached_rate() -> None:
    # 800 fresh prompt tokens at $3, 200 cached at $0.30, 500 completion at $15 (per million);
    # reasoning tokens are already inside completion_tokens.
    cost = SONNET.cost_usd(usage(1000, 500, reasoning=120, cached=200))
    assert cost == pytest.approx((800 * 3 + 200 * 0.3 + 500 * 15) / 1e6)
    without_cache_rate = Price(input=3.0, output=15.0)
    assert without_cache_rate.cost_usd(usage(1000, 500, cached=200)) == pytest.approx(0.0105)
    assert SONNET.cost_usd({}) is None


def test_shipped_table_has_a_source_for_every_row() -> None:
    table = load_prices()
    assert table.origin.startswith("shipped ")
    assert len(table.models) >= 5
    for slug, price in table.models.items():
        assert "/" in slug
        assert price.source.startswith("https://"), slug
        assert 0 < price.input <= price.output


def test_lookup_order_and_release_date_suffix() -> None:
    table = PriceTable({"a/model": Price(1.0, 2.0), "b/other": Price(5.0, 5.0)}, "test")
    assert table.price_for("a/model") == Price(1.0, 2.0)
    assert table.price_for("unknown/x", "b/other") == Price(5.0, 5.0)
    assert table.price_for(None, "a/model-20251001") == Price(1.0, 2.0)
    assert table.price_for("a/model-2025-10-01") == Price(1.0, 2.0)
    assert table.price_for("a/model-v2") is None
    assert table.cost_usd(usage(10, 10), "nobody/knows") is None


def test_override_file_replaces_and_adds_rows(tmp_path: Path) -> None:
    override = tmp_path / "prices.json"
    override.write_text(
        json.dumps(
            {
                "models": {
                    "anthropic/claude-haiku-4.5": {"input": 0.5, "output": 2.5},
                    "local/llama": {"input": 0, "output": 0, "source": "self-hosted"},
                }
            }
        )
    )
    table = load_prices(override)
    assert table.price_for("anthropic/claude-haiku-4.5") == Price(0.5, 2.5)
    assert table.price_for("local/llama") == Price(0.0, 0.0, None, "self-hosted")
    assert table.price_for("openai/gpt-4.1") == load_prices().price_for("openai/gpt-4.1")
    assert str(override) in table.origin


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "a price file is an object with a 'models' object"),
        ('{"models": {"x/y": {"input": 1}}}', "models['x/y']: field 'output' must be"),
        ('{"models": {"x/y": {"input": -1, "output": 1}}}', "field 'input' must be"),
        ('{"models": {"x/y": {"input": 1, "output": "2"}}}', "field 'output' must be"),
        ("{", "invalid JSON"),
    ],
)
def test_bad_override_names_file_and_row(tmp_path: Path, content: str, message: str) -> None:
    override = tmp_path / "bad.json"
    override.write_text(content)
    with pytest.raises(PriceError, match=r"bad\.json") as info:
        load_prices(override)
    assert message in str(info.value)


def test_entry_cost_prefers_the_reported_cost() -> None:
    table = PriceTable({"m/x": SONNET}, "test")
    reported = entry_cost([Call(usage(1000, 500), 0.5, "m/x")], table, "m/x")
    assert (reported.cost_usd, reported.source) == (0.5, "endpoint")
    priced = entry_cost([Call(usage(1000, 0)), Call(usage(0, 1000))], table, "m/x")
    assert priced.cost_usd == pytest.approx((1000 * 3 + 1000 * 15) / 1e6)
    assert priced.source == "price_table"
    mixed = entry_cost([Call(usage(1000, 0), 0.25), Call(usage(1000, 0))], table, "m/x")
    assert mixed.cost_usd == pytest.approx(0.25 + 0.003)
    assert mixed.source == "endpoint+price_table"


def test_entry_cost_unknown_is_none_with_a_note() -> None:
    table = PriceTable({}, "empty table")
    unknown = entry_cost([Call(usage(10, 10), None, "x/y")], table, "x/y")
    assert unknown.cost_usd is None
    assert unknown.note == "cost unknown: no price for 'x/y' (empty table)"
    assert entry_cost([], table, "x/y").cost_usd is None


def record(
    source: str, cost: float | None, u: Usage, error: str | None = None
) -> dict[str, object]:
    return {"source": source, "cost_usd": cost, "usage": u, "error": error}


def test_run_totals_sum_tokens_and_cost() -> None:
    records = [
        record("Hello.", 0.002, usage(100, 20, reasoning=5, cached=10)),
        record("How are you?", 0.003, usage(150, 30)),
        record("Bye", None, {}, error="HTTP 500 after 4 attempts"),
    ]
    totals = run_totals(records)
    assert totals["prompt_tokens"] == 250
    assert totals["completion_tokens"] == 50
    assert totals["reasoning_tokens"] == 5
    assert totals["cached_tokens"] == 10
    assert totals["total_cost_usd"] == pytest.approx(0.005)
    assert totals["cost_per_entry_usd"] == pytest.approx(0.005 / 3)
    assert totals["cost_per_source_char"] == pytest.approx(0.005 / (6 + 12 + 3))
    assert totals["cost_note"] is None


def test_run_total_is_unknown_when_a_billed_entry_has_no_price() -> None:
    records = [record("a", 0.001, usage(10, 5)), record("b", None, usage(10, 5))]
    totals = run_totals(records)
    assert totals["total_cost_usd"] is None
    assert totals["cost_per_entry_usd"] is None
    assert totals["cost_per_source_char"] is None
    assert totals["cost_note"].startswith("cost unknown for 1 of 2 entries")


def test_run_without_any_usage_has_no_cost() -> None:
    totals = run_totals([record("a", None, {}), record("b", None, {})])
    assert totals["total_cost_usd"] is None
    assert totals["cost_note"] == "no entry reported token usage or a cost"


def test_an_errored_but_billed_entry_still_counts() -> None:
    records = [
        record("a", 0.001, usage(10, 5)),
        record("b", 0.0004, usage(10, 0), error="empty response (no content)"),
    ]
    assert run_totals(records)["total_cost_usd"] == pytest.approx(0.0014)


def test_sum_usage_keeps_unknown_apart_from_zero() -> None:
    assert sum_usage([{}, {}]) == {}
    assert sum_usage([usage(1, 2, 3, 4), {}, usage(1, 1)]) == usage(2, 3, 3, 4)


def test_token_estimate_counts_utf8_bytes() -> None:
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("") == 0
    # 'â' is two bytes in UTF-8: "nipâw" is 6 bytes -> 2 tokens at 4 bytes a token.
    assert estimate_tokens("nipâw") == 2


def test_estimate_grows_with_retries() -> None:
    one = estimate_entry("The dog sleeps.", "Translate.", calls=1)
    four = estimate_entry("The dog sleeps.", "Translate.", calls=4)
    assert four["completion_tokens"] == 4 * one["completion_tokens"]
    assert four["prompt_tokens"] > 4 * one["prompt_tokens"]


def test_estimate_run_prices_every_entry() -> None:
    table = PriceTable({"m/x": Price(1.0, 2.0)}, "test")
    entries = [{"id": 1, "source": "dog"}, {"id": 2, "source": "the old man walks home"}]
    estimate = estimate_run(entries, "Translate from English.", table, "m/x")
    per_entry = estimate["per_entry"]
    assert [e["id"] for e in per_entry] == [1, 2]
    for e in per_entry:
        expected = (e["prompt_tokens"] * 1.0 + e["completion_tokens"] * 2.0) / 1e6
        assert e["cost_usd"] == pytest.approx(expected)
    assert estimate["estimated_cost_usd"] == pytest.approx(sum(e["cost_usd"] for e in per_entry))
    assert estimate["prompt_tokens"] == sum(e["prompt_tokens"] for e in per_entry)
    unknown = estimate_run(entries, "Translate.", table, "other/model")
    assert unknown["estimated_cost_usd"] is None
    assert unknown["cost_note"] == "no price for 'other/model' in the price table"
