"""Helpers of the fault-injection suite: the fault probe as a method folder, a session run,
and the checks every faulty run must pass (card written and verifying, one row per collected
entry, the others scored exactly as in a clean run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from conftest import envelope, flores_entries
from methods_for_tests import MANIFEST

from pytest_mteval.cards import runcard

PROBE_SOURCE = Path(__file__).with_name("fault_probe.py").read_text(encoding="utf-8")
ARGS = {"fault": {"type": "string"}, "target": {"type": "string"}, "secret": {"secret": True}}


def write_corpus(folder: Path, count: int = 4) -> Path:
    path = folder / "corpus.json"
    path.write_text(json.dumps(envelope(flores_entries(count))), encoding="utf-8")
    return path


def write_fault_probe(folder: Path) -> Path:
    method = folder / "probe"
    method.mkdir(parents=True, exist_ok=True)
    manifest = {**MANIFEST, "args": ARGS}
    (method / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    (method / "probe.py").write_text(PROBE_SOURCE, encoding="utf-8")
    return method


def run(
    pytester: pytest.Pytester, fault: str, *extra: str, target: str = "2", subprocess: bool = False
) -> tuple[pytest.RunResult, Path]:
    corpus = write_corpus(pytester.path)
    probe = write_fault_probe(pytester.path)
    card = pytester.path / "card.json"
    args = (
        f"--mteval-corpus={corpus}",
        f"--mteval-method={probe}",
        f"--mteval-method-arg=fault={fault}",
        f"--mteval-method-arg=target={target}",
        "--mteval-batch-size=2",
        f"--mteval-run-card={card}",
        *extra,
    )
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    return runner(*args), card


def checked_card(path: Path) -> dict[str, Any]:
    """The card at ``path``, verified as ``mteval verify`` would."""
    card = runcard.load(path)
    runcard.verify(card, path)
    return card


def clean_row(entry: dict[str, Any]) -> dict[str, Any]:
    """What a clean run scores for an entry the probe answers (source upper-cased), computed
    with sacrebleu itself, not with the harness."""
    predicted = entry["source"].upper()
    reference = entry["reference"]
    return {
        "predicted": predicted,
        "chrf_score": sacrebleu.sentence_chrf(predicted, [reference], word_order=2).score,
        "bleu_score": sacrebleu.sentence_bleu(predicted, [reference]).score,
        "error": None,
    }


def assert_accounted(card: dict[str, Any], faulty: set[str], cause: str) -> None:
    """One row per corpus entry; the faulty ones errors naming ``cause``, the others as clean."""
    entries = {str(e["id"]): e for e in flores_entries(len(card["results"]))}
    rows = {row["entry_id"]: row for row in card["results"]}
    assert len(card["results"]) == len(rows) == len(entries) == card["scores"]["total"]
    assert set(rows) == set(entries)
    assert card["scores"]["errors"] == len(faulty)
    for key, row in rows.items():
        if key in faulty:
            assert row["error"] is not None
            assert cause in row["error"], row["error"]
            assert row["predicted"] is None
            continue
        expected = clean_row(entries[key])
        assert row["predicted"] == expected["predicted"]
        assert row["error"] is None
        assert row["chrf_score"] == pytest.approx(expected["chrf_score"], abs=1e-9)
        assert row["bleu_score"] == pytest.approx(expected["bleu_score"], abs=1e-9)
