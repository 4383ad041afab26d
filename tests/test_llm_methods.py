"""raw-llm, coached-llm and fst-gated translating real corpus entries against a loopback
chat-completions server, loaded through method.json like a user's run would load them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Reply

from pytest_mteval.corpus import Entry, load_corpus
from pytest_mteval.llm.cost import estimate_run
from pytest_mteval.llm.pricing import load_prices
from pytest_mteval.methods.loader import find_method
from pytest_mteval.methods.protocol import MethodEntry, RunConfig, TranslationMethod
from pytest_mteval.metrics.fst import load_analyzer
from pytest_mteval.metrics.text import words
from pytest_mteval.run.batch_translation import method_view

REPO = Path(__file__).resolve().parents[1]
VOCAB = load_corpus(REPO / "corpora" / "eng-crk-morphodict-vocab.json")
ANALYZER = REPO / "corpora" / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"
FAKE_KEY = "sk-or-v1-FAKEKEY-0b5e-do-not-leak"
KEY_ENV = "MTEVAL_TEST_API_KEY"
ORACLE = {e.source: e.reference for e in VOCAB.entries}


def gated_entries(count: int) -> list[Entry]:
    """Real entries whose English source the strict analyzer rejects and whose Cree
    reference it accepts, so that answering in English trips the gate."""
    analyzer = load_analyzer(ANALYZER)
    chosen = [
        e
        for e in VOCAB.entries
        if not any(analyzer.accepts(w) for w in words(e.source))
        and all(analyzer.accepts(w) for w in words(e.reference))
    ]
    return chosen[:count]


def oracle(messages: list[dict[str, Any]]) -> str:
    """A 'model' that knows the corpus: the reference for the user's source text."""
    return ORACLE[messages[1]["content"]]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)
    with ChatServer(translate=oracle, model_id="test/oracle-20261130") as running:
        yield running


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"test/oracle": {"input": 2.0, "output": 10.0}}}))
    return path


def run_config(server: ChatServer, prices: Path, **args: str) -> RunConfig:
    return RunConfig(
        source_language="en",
        target_language="crk",
        model="test/oracle",
        concurrency=3,
        timeout_s=60.0,
        method_args={
            "base_url": server.url,
            "api_key_env": KEY_ENV,
            "prices": str(prices),
            "max_attempts": "2",
            **args,
        },
    )


def build(name: str, config: RunConfig) -> TranslationMethod:
    return find_method(f"methods/{name}", REPO, {}).factory(config)


def views(entries: list[Entry]) -> list[MethodEntry]:
    return [method_view(e) for e in entries]


@pytest.mark.asyncio
async def test_raw_llm_translates_real_entries(server: ChatServer, prices: Path) -> None:
    entries = list(VOCAB.entries[:6])
    config = run_config(server, prices)
    method = build("raw-llm", config)
    results = await method.translate(views(entries), config)
    system = method.system_prompt(config)  # type: ignore[attr-defined]
    assert "English" in system
    assert "Plains Cree" in system
    assert [r["id"] for r in results] == [e.id for e in entries]
    assert [r["predicted"] for r in results] == [e.reference for e in entries]
    for entry, result in zip(entries, results, strict=True):
        assert result["error"] is None
        assert result["tool_call_count"] == 0
        prompt = len(system.split()) + len(entry.source.split())
        completion = len(entry.reference.split())
        assert result["usage"]["prompt_tokens"] == prompt
        assert result["usage"]["completion_tokens"] == completion
        assert result["cost_usd"] == pytest.approx((prompt * 2.0 + completion * 10.0) / 1e6)
        assert result["metadata"]["model_id"] == "test/oracle-20261130"
        assert result["metadata"]["cost_source"] == "price_table"
    sent = [r.body["messages"] for r in server.requests]
    assert sorted(m[1]["content"] for m in sent) == sorted(e.source for e in entries)
    assert all(m[0] == {"role": "system", "content": system} for m in sent)
    assert FAKE_KEY not in json.dumps(results)


@pytest.mark.asyncio
async def test_a_failing_entry_does_not_stop_the_others(server: ChatServer, prices: Path) -> None:
    entries = list(VOCAB.entries[:5])
    doomed = entries[2].source
    server.responder = lambda body: (
        Reply.error(503) if body["messages"][1]["content"] == doomed else None
    )
    config = run_config(server, prices)
    results = await build("raw-llm", config).translate(views(entries), config)
    errors = {r["id"]: r["error"] for r in results}
    assert errors[entries[2].id] == "HTTP 503 after 2 attempts"
    assert results[2]["predicted"] is None
    assert results[2]["cost_usd"] is None
    ok = [r for r in results if r["id"] != entries[2].id]
    assert [r["predicted"] for r in ok] == [e.reference for e in entries if e.source != doomed]


@pytest.mark.asyncio
async def test_configuration_faults_become_entry_errors(server: ChatServer, prices: Path) -> None:
    entries = views(list(VOCAB.entries[:2]))
    config = RunConfig(target_language="crk", method_args={"base_url": server.url})
    results = await build("raw-llm", config).translate(entries, config)
    assert [r["error"] for r in results] == [
        "no model configured: pass --mteval-model=<provider/slug>"
    ] * 2
    assert server.requests == []


@pytest.mark.asyncio
async def test_unknown_price_is_none_with_a_note(server: ChatServer, prices: Path) -> None:
    server.model_id = None  # the endpoint echoes the requested slug
    config = run_config(server, prices)
    config = RunConfig(**{**config.to_json(), "model": "test/unpriced"})
    (result,) = await build("raw-llm", config).translate(views(list(VOCAB.entries[:1])), config)
    assert result["predicted"] == VOCAB.entries[0].reference
    assert result["cost_usd"] is None
    assert result["metadata"]["cost_note"].startswith("cost unknown: no price for 'test/unpriced'")


@pytest.mark.asyncio
async def test_coached_llm_records_its_coaching(server: ChatServer, prices: Path) -> None:
    entries = list(VOCAB.entries[:3])
    config = run_config(server, prices)
    method = build("coached-llm", config)
    results = await method.translate(views(entries), config)
    shipped = REPO / "methods" / "coached-llm" / "coaching" / "crk.json"
    digest = hashlib.sha256(shipped.read_bytes()).hexdigest()
    system = method.system_prompt(config)  # type: ignore[attr-defined]
    for note in json.loads(shipped.read_text(encoding="utf-8"))["notes"]:
        assert note in system
    assert [r["predicted"] for r in results] == [e.reference for e in entries]
    assert {r["metadata"]["coaching_data_sha256"] for r in results} == {digest}
    fields = method.run_card_fields(config)  # type: ignore[attr-defined]
    assert fields == {"tools_enabled": [], "coaching_data_sha256": digest}
    assert all(r.body["messages"][0]["content"] == system for r in server.requests)


@pytest.mark.asyncio
async def test_coached_llm_with_a_user_coaching_file(
    server: ChatServer, prices: Path, tmp_path: Path
) -> None:
    coaching = tmp_path / "mine.json"
    coaching.write_text(
        json.dumps(
            {
                "notes": ["Prefer the short form."],
                "dictionary": [{"source": "sun", "target": "SUN-WORD", "note": "the star"}],
                "examples": [{"source": "Good day.", "target": "GOOD-DAY."}],
            }
        ),
        encoding="utf-8",
    )
    config = run_config(server, prices, coaching=str(coaching))
    method = build("coached-llm", config)
    system = method.system_prompt(config)  # type: ignore[attr-defined]
    assert "1. Prefer the short form." in system
    assert "- sun = SUN-WORD (the star)" in system
    assert "English: Good day.\nPlains Cree: GOOD-DAY." in system
    (result,) = await method.translate(views(list(VOCAB.entries[:1])), config)
    expected = hashlib.sha256(coaching.read_bytes()).hexdigest()
    assert result["metadata"]["coaching_data_sha256"] == expected


@pytest.mark.asyncio
async def test_coached_llm_bad_coaching_file(
    server: ChatServer, prices: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"notes": []}')
    for path, message in [
        (empty, "no notes, dictionary entries or examples"),
        (tmp_path / "missing.json", "cannot read coaching file"),
    ]:
        config = run_config(server, prices, coaching=str(path))
        (result,) = await build("coached-llm", config).translate(
            views(list(VOCAB.entries[:1])), config
        )
        assert message in str(result["error"])
        assert str(path) in str(result["error"])
    assert server.requests == []


def test_shipped_coaching_holds_no_evaluation_data() -> None:
    """Coaching on the evaluation corpus disqualifies a method (method interface spec)."""
    coaching = (REPO / "methods" / "coached-llm" / "coaching" / "crk.json").read_text("utf-8")
    coached = {w.casefold() for w in words(coaching)}
    cree = {
        w.casefold() for e in VOCAB.entries for t in (e.reference, *e.variants) for w in words(t)
    }
    english = {w.casefold() for e in VOCAB.entries for w in words(e.source)}
    # Words that are also English are no Cree evidence, and single letters are the alphabet
    # (the notes list the vowels â, î, ô, which are also one-letter Cree words).
    leaked = {w for w in (coached & cree) - english if len(w) > 1}
    assert leaked == set()


@pytest.mark.asyncio
async def test_fst_gated_retries_with_the_rejected_words(server: ChatServer, prices: Path) -> None:
    entries = gated_entries(4)
    assert len(entries) == 4
    # First answer: the English source (the analyzer rejects it); after feedback: the Cree.
    server.translate = lambda m: m[1]["content"] if len(m) == 2 else ORACLE[m[1]["content"]]
    config = RunConfig(**{**run_config(server, prices).to_json(), "fst_path": str(ANALYZER)})
    method = build("fst-gated", config)
    results = await method.translate(views(entries), config)
    assert method.run_card_fields(config) == {  # type: ignore[attr-defined]
        "tools_enabled": ["fst_check"],
        "max_retries": 3,
        "fst_version": "sha256:" + hashlib.sha256(ANALYZER.read_bytes()).hexdigest(),
    }
    for entry, result in zip(entries, results, strict=True):
        rejected = list(dict.fromkeys(words(entry.source)))
        assert result["error"] is None
        assert result["predicted"] == entry.reference
        assert result["tool_calls"] == [
            {"tool": "fst_check", "rejected": rejected, "attempt": 1},
            {"tool": "fst_check", "rejected": [], "attempt": 2},
        ]
        assert result["tool_call_count"] == 2
        assert result["metadata"]["requests"] == 2
        assert result["metadata"]["fst_rejected"] == []
    retries = [r.body["messages"] for r in server.requests if len(r.body["messages"]) == 4]
    assert len(retries) == 4
    for conversation in retries:
        source = conversation[1]["content"]
        assert conversation[2] == {"role": "assistant", "content": source}
        assert all(w in conversation[3]["content"] for w in words(source))


@pytest.mark.asyncio
async def test_fst_gated_gives_up_after_max_retries(server: ChatServer, prices: Path) -> None:
    (entry,) = gated_entries(1)
    server.translate = lambda m: m[1]["content"]  # always English
    config = run_config(server, prices, fst=str(ANALYZER), max_retries="2")
    (result,) = await build("fst-gated", config).translate(views([entry]), config)
    assert len(server.requests) == 3
    assert result["tool_call_count"] == 3
    assert [c["attempt"] for c in result["tool_calls"]] == [1, 2, 3]
    assert result["predicted"] == entry.source
    assert result["metadata"]["fst_rejected"] == list(dict.fromkeys(words(entry.source)))
    assert result["usage"]["completion_tokens"] == 3 * len(entry.source.split())


@pytest.mark.asyncio
async def test_fst_gated_keeps_paid_work_when_a_retry_fails(
    server: ChatServer, prices: Path
) -> None:
    (entry,) = gated_entries(1)
    server.translate = lambda m: m[1]["content"]
    server.responder = lambda body: Reply.error(500) if len(body["messages"]) > 2 else None
    config = run_config(server, prices, fst=str(ANALYZER), max_retries="3")
    (result,) = await build("fst-gated", config).translate(views([entry]), config)
    assert result["error"] is None
    assert result["predicted"] == entry.source
    assert result["metadata"]["retry_error"] == "HTTP 500 after 2 attempts"
    assert result["tool_call_count"] == 1
    assert result["cost_usd"] is not None
    assert result["cost_usd"] > 0


@pytest.mark.asyncio
async def test_fst_gated_without_an_analyzer(server: ChatServer, prices: Path) -> None:
    config = run_config(server, prices)
    (result,) = await build("fst-gated", config).translate(views(list(VOCAB.entries[:1])), config)
    assert str(result["error"]).startswith("fst-gated needs a morphological analyzer")
    assert server.requests == []


def test_dry_run_estimate_uses_the_methods_call_bound() -> None:
    config = RunConfig(
        source_language="en",
        target_language="crk",
        model="google/gemini-2.5-flash",
        method_args={"fst": str(ANALYZER), "max_retries": "3"},
    )
    entries = views(list(VOCAB.entries[:10]))
    estimates = {}
    for name in ("raw-llm", "fst-gated"):
        method = build(name, config)
        calls = method.max_calls_per_entry(config)  # type: ignore[attr-defined]
        prompt = method.system_prompt(config)  # type: ignore[attr-defined]
        estimates[name] = estimate_run(entries, prompt, load_prices(), config.model, calls)
    assert estimates["raw-llm"]["calls_per_entry"] == 1
    assert estimates["fst-gated"]["calls_per_entry"] == 4
    raw, gated = (estimates[n]["estimated_cost_usd"] for n in ("raw-llm", "fst-gated"))
    assert raw is not None
    assert gated is not None
    assert gated > 4 * raw
