"""The reference harness's plugins run unchanged: its own ``method_plugin_passthrough`` (a copy
of its repository's files, tests/data/reference-harness/SOURCE.md) evaluates under the default
runner, in the sandbox where the kernel allows one; a plugin reading that harness's RunConfig
fields and returning its result dicts gets what it reads, and its costs reach the card."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
import sacrebleu
from conftest import DATA

from pytest_mteval.methods.manifest import ManifestError, load_manifest
from pytest_mteval.run.sandbox import sandbox_problem

HARNESS = DATA / "reference-harness"
PASSTHROUGH = HARNESS / "method_plugin_passthrough"
SAMPLE = HARNESS / "corpora" / "sample_corpus.json"
NO_SANDBOX = sandbox_problem()


def copied_plugin(where: Path) -> Path:
    folder = where / "method_plugin_passthrough"
    shutil.copytree(PASSTHROUGH, folder)
    for name in ("method.json", "passthrough.py"):  # unchanged, byte for byte
        assert (folder / name).read_bytes() == (PASSTHROUGH / name).read_bytes()
    return folder


def run_card(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    card_path = pytester.path / "card.json"
    result = pytester.runpytest(f"--mteval-run-card={card_path}", "--mteval-no-cache", *args)
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.exists() else {}
    return result, card


def test_its_manifest_is_mapped_onto_ours(tmp_path: Path) -> None:
    manifest = load_manifest(copied_plugin(tmp_path) / "method.json")
    assert manifest.method_class == "custom-plugin"
    assert (manifest.model_extra or {})["harness_class"] == "example"
    assert (manifest.supported_pairs, manifest.dependency_class) == (["*"], "S")
    # a manifest of ours that lacks a field is still refused, not taken for the harness's
    ours = tmp_path / "ours.json"
    raw = json.loads((PASSTHROUGH / "method.json").read_text(encoding="utf-8"))
    ours.write_text(json.dumps({**raw, "supported_pairs": ["*"]}), encoding="utf-8")
    with pytest.raises(ManifestError, match=r"ours\.json: .*field 'class'"):
        load_manifest(ours)


def test_its_passthrough_plugin_evaluates_its_flat_corpus(pytester: pytest.Pytester) -> None:
    plugin = copied_plugin(pytester.path)
    result, card = run_card(pytester, f"--mteval-corpus={SAMPLE}", f"--mteval-method={plugin}")
    result.assert_outcomes(passed=5)
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    rows = card["results"]
    assert [r["predicted"] for r in rows] == [e["source"] for e in raw]  # what it does
    assert [r["metadata"] for r in rows] == [{"passthrough": True}] * 5
    chrf = sacrebleu.CHRF(word_order=2).corpus_score(
        [e["source"] for e in raw], [[e["target"] for e in raw]]
    )
    assert card["scores"]["chrf_plus_plus"] == pytest.approx(chrf.score, abs=1e-9)
    assert "compatibility shim" in card["method"]["compatibility_shim"]
    assert card["method"]["fields"]["harness_method_card"]["class"] == "example"
    assert card["runner"]["mode"] == "process"
    assert card["runner"]["isolated"] is (NO_SANDBOX is None)


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no sandbox here: {NO_SANDBOX}")
def test_it_runs_in_the_sandbox_when_asked_strictly(pytester: pytest.Pytester) -> None:
    plugin = copied_plugin(pytester.path)
    result, card = run_card(
        pytester, f"--mteval-corpus={SAMPLE}", f"--mteval-method={plugin}", "--mteval-sandbox=netns"
    )
    result.assert_outcomes(passed=5)
    assert card["runner"]["sandbox"] == "netns"


READER = '''
class Reader:
    """Written the reference harness's way: reads its RunConfig, returns its result dicts."""

    async def translate(self, entries, config):
        seen = {
            "source_field": config.source_field,
            "target_field": config.target_field,
            "target_lang": config.target_lang,
            "model": config.model,
            "max_tokens": config.max_tokens,
            "cache_enabled": config.cache_enabled,
            "method_args": config.method_args,
        }
        return [
            {
                "id": e["id"],
                "predicted": e.get(config.source_field, "").upper(),
                "usage": {"prompt_tokens": 3, "completion_tokens": 4, "cost": 0.0015},
                "error": None,
                "tool_calls": [],
                "tool_call_count": 0,
                "metadata": seen,
            }
            for e in entries
        ]
'''


def test_a_plugin_reads_its_runconfig_fields_and_reports_costs(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "reader"
    folder.mkdir()
    (folder / "reader.py").write_text(textwrap.dedent(READER), encoding="utf-8")
    manifest = {"name": "Reader", "method_id": "reader-v1", "class": "example",
                "entry_point": "reader:Reader"}  # fmt: skip
    (folder / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    result, card = run_card(
        pytester, f"--mteval-corpus={SAMPLE}", f"--mteval-method={folder}",
        "--mteval-model=some/model", "--mteval-method-arg=k=v",
    )  # fmt: skip
    result.assert_outcomes(passed=5)
    rows = card["results"]
    assert rows[0]["metadata"] == {
        "source_field": "source", "target_field": "reference", "target_lang": "und",
        "model": "some/model", "max_tokens": 32768, "cache_enabled": False,
        "method_args": {"k": "v"},
    }  # fmt: skip
    assert [r["predicted"] for r in rows] == [r["source"].upper() for r in rows]
    assert [r["cost_usd"] for r in rows] == [0.0015] * 5
    assert rows[0]["usage"] == {"prompt_tokens": 3, "completion_tokens": 4}
    assert card["totals"]["total_cost_usd"] == pytest.approx(0.0075)


def test_a_completed_manifest_asks_for_the_shim(pytester: pytest.Pytester) -> None:
    """Its method.json completed as ours: the method still reads its RunConfig's fields, which
    only the shim gives (without it every entry errors, as the issue found)."""
    plugin = copied_plugin(pytester.path)
    raw = json.loads((plugin / "method.json").read_text(encoding="utf-8"))
    completed = {**raw, "class": "custom-plugin", "supported_pairs": ["*"],
                 "dependency_class": "S", "dependencies": []}  # fmt: skip
    (plugin / "method.json").write_text(json.dumps(completed), encoding="utf-8")
    args = (f"--mteval-corpus={SAMPLE}", f"--mteval-method={plugin}")
    _, without = run_card(pytester, *args)
    assert {r["error"] for r in without["results"]} == {
        "method raised AttributeError: 'RunConfig' object has no attribute 'source_field'"
    }
    completed["compatibility"] = "reference-harness"
    (plugin / "method.json").write_text(json.dumps(completed), encoding="utf-8")
    (pytester.path / "card.json").unlink()
    result, card = run_card(pytester, *args)
    result.assert_outcomes(passed=5)
    assert {r["error"] for r in card["results"]} == {None}
    assert "its method.json declares its dependencies" in card["method"]["compatibility_shim"]
