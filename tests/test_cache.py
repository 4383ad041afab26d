"""The translation cache: keyed by the whole method configuration and the source side, never by
entry id; atomic under concurrent writers; errors never stored."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest
from replayed_runs import REPLAY, SNA_CORPUS

from pytest_mteval.corpus import load_corpus
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.batches import BatchTranslator
from pytest_mteval.run.cache import (
    TranslationCache,
    cache_totals,
    fingerprint_components,
    method_fingerprint,
    source_key,
)

RESULT = {
    "id": "tatoeba_6056942",
    "predicted": "Ndinokunamata.",
    "raw_predicted": "Ndinokunamata.",
    "latency_s": 1.25,
    "cost_usd": 0.001556,
    "usage": {"prompt_tokens": 40, "completion_tokens": 6},
    "error": None,
}


def _fp(**changes) -> str:
    config = RunConfig(model="openai/gpt-5.5", method_args={"style": "plain"})
    fields = {**config.to_json(), **changes}
    return method_fingerprint("replay", REPLAY, fields, "0.1.0")


def test_a_stored_result_comes_back_marked_cached_with_its_original_cost(tmp_path):
    cache = TranslationCache(tmp_path)
    assert cache.get(_fp(), "I worship you.") is None
    assert cache.put(_fp(), "I worship you.", RESULT)
    found = cache.get(_fp(), "I worship you.")
    assert found is not None
    assert found["cached"] is True
    assert found["predicted"] == "Ndinokunamata."
    assert found["latency_s"] == 1.25
    assert found["cost_usd"] == 0.001556
    assert found["usage"] == {"prompt_tokens": 40, "completion_tokens": 6}
    assert "id" not in found


def test_the_key_is_the_source_side_not_the_entry_id(tmp_path):
    cache = TranslationCache(tmp_path)
    cache.put(_fp(), {"id": "a", "source": "I worship you."}, RESULT)
    assert cache.get(_fp(), {"id": "b", "source": "I worship you."}) is not None
    assert cache.get(_fp(), "I worship you.") is not None
    assert cache.get(_fp(), "I worship them.") is None
    with_context = {"id": "a", "source": "I worship you.", "context": "a prayer"}
    assert cache.get(_fp(), with_context) is None
    assert source_key({"source": "x", "domain": "conv"}) != source_key("x")


@pytest.mark.parametrize(
    "change",
    [
        {"model": "anthropic/claude-haiku-4.5"},
        {"temperature": 0.7},
        {"condition": "coached"},
        {"batch_size": 5},
        {"method_args": {"style": "formal"}},
        {"target_language": "sme"},
    ],
    ids=lambda c: next(iter(c)),
)
def test_anything_that_can_change_an_output_changes_the_fingerprint(tmp_path, change):
    cache = TranslationCache(tmp_path)
    cache.put(_fp(), "I worship you.", RESULT)
    assert _fp(**change) != _fp()
    assert cache.get(_fp(**change), "I worship you.") is None


def test_scheduling_and_the_folders_location_do_not_change_the_fingerprint(tmp_path):
    copy = tmp_path / "elsewhere" / "replay"
    shutil.copytree(REPLAY, copy)
    config = RunConfig(model="m", method_dir=str(REPLAY), concurrency=8, timeout_s=300)
    moved = RunConfig(model="m", method_dir=str(copy), concurrency=1, timeout_s=5)
    assert method_fingerprint("replay", REPLAY, config, "1") == method_fingerprint(
        "replay", copy, moved, "1"
    )


def test_the_method_code_and_the_harness_version_change_the_fingerprint(tmp_path):
    copy = tmp_path / "replay"
    shutil.copytree(REPLAY, copy)
    before = method_fingerprint("replay", copy, RunConfig(), "1")
    assert method_fingerprint("replay", copy, RunConfig(), "2") != before
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "replay.cpython-311.pyc").write_bytes(b"bytecode")
    assert method_fingerprint("replay", copy, RunConfig(), "1") == before
    code = copy / "replay.py"
    code.write_text(code.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert method_fingerprint("replay", copy, RunConfig(), "1") != before


def test_a_file_named_in_the_config_counts_by_content_not_path(tmp_path):
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    one.write_text('{"id": 1, "predicted": "x"}\n', encoding="utf-8")
    shutil.copy(one, two)
    fp_one = method_fingerprint(
        "replay", None, RunConfig(method_args={"predictions": str(one)}), "1"
    )
    fp_two = method_fingerprint(
        "replay", None, RunConfig(method_args={"predictions": str(two)}), "1"
    )
    assert fp_one == fp_two
    two.write_text('{"id": 1, "predicted": "y"}\n', encoding="utf-8")
    fp_changed = method_fingerprint(
        "replay", None, RunConfig(method_args={"predictions": str(two)}), "1"
    )
    assert fp_changed != fp_one
    components = fingerprint_components("replay", None, RunConfig(), "1")
    assert components["code_sha256"] is None
    assert "method_dir" not in components["run_config"]


@pytest.mark.parametrize(
    "result",
    [
        {**RESULT, "error": "timeout", "predicted": None},
        {**RESULT, "error": "HTTP 500"},
        {**RESULT, "predicted": None},
    ],
)
def test_failures_are_never_stored(tmp_path, result):
    cache = TranslationCache(tmp_path)
    assert not cache.put(_fp(), "I worship you.", result)
    assert cache.get(_fp(), "I worship you.") is None


def test_an_unreadable_file_is_a_miss(tmp_path):
    cache = TranslationCache(tmp_path)
    cache.put(_fp(), "I worship you.", RESULT)
    cache.path_for(_fp(), "I worship you.").write_text('{"fingerprint": "', encoding="utf-8")
    assert cache.get(_fp(), "I worship you.") is None


def test_the_cache_folder_is_ignored_by_git(tmp_path):
    cache = TranslationCache(tmp_path / ".mteval" / "cache")
    cache.put(_fp(), "I worship you.", RESULT)
    assert (tmp_path / ".mteval" / "cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def _writer(root: str, fingerprint: str, worker: int) -> None:
    cache = TranslationCache(Path(root))
    for round_ in range(40):
        for key in range(5):  # the same five keys from every process: maximal contention
            result = {**RESULT, "predicted": f"w{worker}-r{round_}-k{key}" * 50}
            cache.put(fingerprint, f"source {key}", result)  # type: ignore[arg-type]
            cache.get(fingerprint, f"source {key}")


def test_concurrent_writers_leave_only_whole_files(tmp_path):
    """Eight processes (as xdist workers would) write the same keys at once: every file that
    remains is one writer's complete JSON, and no temporary file is left behind."""
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_writer, args=(str(tmp_path), _fp(), n)) for n in range(8)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    cache = TranslationCache(tmp_path)
    for key in range(5):
        found = cache.get(_fp(), f"source {key}")
        assert found is not None
        assert found["predicted"].endswith(f"-k{key}")
    files = [p for p in (tmp_path / _fp()).rglob("*") if p.is_file()]
    assert len(files) == 5
    for path in files:
        json.loads(path.read_text(encoding="utf-8"))


def test_batch_translator_pays_once_and_keeps_ids(tmp_path):
    """The harness's real path: BatchTranslator reads the cache, translates the rest, stores."""
    entries = list(load_corpus(SNA_CORPUS).entries[:4])
    calls: list[list[str]] = []

    class Method:
        async def translate(self, batch, config):
            calls.append([str(e["id"]) for e in batch])
            out = [{"id": e["id"], "predicted": e["source"].upper()} for e in batch]
            out[-1] = {"id": batch[-1]["id"], "predicted": None, "error": "boom"}
            return out

    method = Method()

    def translator(cache):
        return BatchTranslator([entries], lambda: method, RunConfig(), cache, _fp())

    cache = TranslationCache(tmp_path)
    first, _ = translator(cache).translate(0)
    assert len(calls) == 1
    assert not any(r.get("cached") for r in first.values())
    second, _ = translator(cache).translate(0)
    assert calls[1] == [entries[-1].key]  # only the entry that errored is translated again
    assert [second[e.key].get("cached", False) for e in entries] == [True, True, True, False]
    assert all(second[e.key]["id"] == e.id for e in entries)
    assert second[entries[0].key]["predicted"] == entries[0].source.upper()
    off, _ = translator(None).translate(0)
    assert len(calls) == 3
    assert len(off) == 4


def test_cache_totals_count_hits_and_their_original_cost():
    records = [
        {"cached": True, "cost_usd": 0.002, "latency_s": 1.5},
        {"cached": True, "cost_usd": None, "latency_s": 0.5},
        {"cost_usd": 0.1, "latency_s": 9.0},
    ]
    totals = cache_totals(records)
    assert totals == {
        "cache_rejected": 0,
        "cache_hits": 2,
        "cached_cost_usd": 0.002,
        "cached_latency_s": 2.0,
    }
