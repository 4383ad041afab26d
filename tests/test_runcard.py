"""Run cards: every spec field, an independently re-computable hash and fingerprint, atomic
never-overwriting writes, and `mteval verify` / `mteval schema`."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from conftest import METHODS, documented_fingerprint

pytest_plugins = ["pytester"]

SPEC_TOP_LEVEL = [
    "run_id",
    "harness_version",
    "timestamp",
    "elapsed_seconds",
    "model_slug",
    "model_id",
    "condition",
    "temperature",
    "system_prompt_sha256",
    "system_prompt_used",
    "coaching_data_sha256",
    "fst_version",
    "tools_enabled",
    "batch_size",
    "max_retries",
    "dataset",
    "scores",
    "totals",
    "results",
    "fingerprint",
    "run_card_hash",
]
SPEC_SCORES = [
    "total",
    "exact_matches",
    "exact_match_rate",
    "equivalent_matches",
    "equivalent_match_rate",
    "fst_accepted",
    "fst_acceptance_rate",
    "morphological_accuracy",
    "chrf_plus_plus",
    "semantic_score",
    "ter",
    "length_ratio",
    "code_switching_rate",
    "hallucination_rate",
    "terminology_adherence",
    "tokens_per_second",
    "entries_per_minute",
    "composite",
    "errors",
    "by_difficulty",
    "by_provenance",
    "by_domain",
    "avg_latency_seconds",
    "median_latency_seconds",
    "p95_latency_seconds",
]
SPEC_TOTALS = [
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "cached_tokens",
    "total_cost_usd",
    "cost_per_entry_usd",
    "cost_per_source_char",
]
SPEC_RESULT = [
    "entry_id",
    "source",
    "expected",
    "raw_predicted",
    "predicted",
    "segment",
    "difficulty",
    "domain",
    "exact_match",
    "chrf_score",
    "bleu_score",
    "latency_s",
    "cost_usd",
    "tool_call_count",
    "error",
    "plugin_metrics",
    "fst_valid",
    "equivalent_match",
    "semantic_verdict",
    "code_switching_detected",
    "hallucination_detected",
]


@pytest.fixture
def card_path(pytester, small_corpus):
    path = pytester.path / "cards" / "run.json"
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={path}",
        "--mteval-condition=floor",
        "--mteval-temperature=0.3",
    ).assert_outcomes(passed=6)
    return path


def mteval(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


def test_card_has_every_spec_field(card_path):
    card = json.loads(card_path.read_text(encoding="utf-8"))
    assert set(SPEC_TOP_LEVEL) <= set(card)
    assert set(SPEC_SCORES) <= set(card["scores"])
    assert set(SPEC_TOTALS) <= set(card["totals"])
    assert all(set(SPEC_RESULT) <= set(row) for row in card["results"])
    assert card["condition"] == "floor"
    assert card["temperature"] == 0.3
    assert card["dataset"]["entry_count"] == 6
    assert "nc:6|nw:2" in card["signatures"]["chrf_plus_plus"]


def test_hash_and_fingerprint_follow_the_documented_encoding(card_path):
    card = json.loads(card_path.read_text(encoding="utf-8"))
    unsealed = dict(card, run_card_hash="")
    expected_hash = hashlib.sha256(
        json.dumps(unsealed, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()
    assert card["run_card_hash"] == expected_hash
    assert card["fingerprint"] == documented_fingerprint(card)


def test_verify_accepts_a_card_and_rejects_any_edit(card_path, tmp_path):
    ok = mteval("verify", str(card_path))
    assert ok.returncode == 0, ok.stdout
    card = json.loads(card_path.read_text(encoding="utf-8"))
    card["results"][0]["predicted"] = "edited"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(card), encoding="utf-8")
    bad = mteval("verify", str(tampered))
    assert bad.returncode == 1
    assert bad.stdout.count("\n") == 1
    assert "run_card_hash does not match" in bad.stdout
    del card["scores"]
    tampered.write_text(json.dumps(card), encoding="utf-8")
    assert "field 'scores'" in mteval("verify", str(tampered)).stdout


def test_card_is_never_overwritten(pytester, small_corpus, card_path):
    before = card_path.read_bytes()
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card_path}",
    )
    assert card_path.read_bytes() == before
    siblings = sorted(p.name for p in card_path.parent.glob("*.json"))
    assert len(siblings) == 2
    assert not list(card_path.parent.glob(".runcard-*"))


def test_default_card_location(pytester, small_corpus):
    pytester.runpytest(f"--mteval-corpus={small_corpus}", f"--mteval-method={METHODS / 'identity'}")
    (card,) = (pytester.path / ".mteval" / "runs").glob("*.json")
    assert mteval("verify", str(card)).returncode == 0


def test_schema_command_prints_the_run_card_schema():
    out = mteval("schema", "run-card")
    schema = json.loads(out.stdout)
    assert {"run_card_hash", "fingerprint", "scores"} <= set(schema["required"])
