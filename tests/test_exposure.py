"""Declared exposure to evaluation data (spec §9.2.1, §9.2.2): method.json's ``exposure``,
checked strictly, recorded on the card, and flagged when the run is scored on what it names."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import MANIFEST, write_probe

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_view import view_of
from pytest_mteval.methods.manifest import ManifestError, load_manifest
from pytest_mteval.reports.board_rules import DEGENERATE_FLAGS, why_not_ranked

pytest_plugins = ["pytester"]


def _manifest(tmp_path, exposure):
    path = tmp_path / "method.json"
    path.write_text(json.dumps({**MANIFEST, "exposure": exposure}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("exposure", "message"),
    [
        ([{"use": "few-shot", "segments": ["development"]}], "give 'corpus'"),
        (
            [{"use": "few-shot", "corpus": "x", "segments": ["development"], "shots": 3}],
            "exposure.0.shots",
        ),
        ([{"use": "few-shot", "corpus": "x", "segments": []}], "exposure.0.segments"),
        ([{"use": "few-shot", "corpus": "x", "segments": ["dev"]}], "exposure.0.segments.0"),
        ([{"use": "peeking", "corpus": "x", "segments": ["development"]}], "exposure.0.use"),
        ([{"use": "few-shot", "sha256": "abc", "segments": ["development"]}], "exposure.0.sha256"),
        ([{"use": "few-shot", "version": "1", "segments": ["development"]}], "give 'corpus'"),
    ],
)
def test_a_wrong_declaration_names_file_and_field(tmp_path, exposure, message):
    path = _manifest(tmp_path, exposure)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def _corpus(tmp_path, segment):
    entries = flores_entries(6)
    for entry in entries:
        entry["segment"] = segment
    path = tmp_path / f"corpus-{segment}.json"
    path.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    return path


def _ranked_view(card):
    """The card as the leaderboard reads it (verified, as the view)."""
    return view_of(runcard.verify(card, Path("card.json")), card)


def _run(pytester, corpus, exposure, *args):
    folder = write_probe(pytester.path)
    manifest = json.loads((folder / "method.json").read_text())
    (folder / "method.json").write_text(json.dumps({**manifest, "exposure": exposure}))
    card = pytester.path / f"card-{len(list(pytester.path.glob('card-*')))}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={folder}", f"--mteval-run-card={card}", *args
    )
    return result, json.loads(card.read_text(encoding="utf-8"))


def test_declared_development_use_is_on_the_card_and_the_terminal(pytester, tmp_path):
    corpus = _corpus(tmp_path, "development")
    dataset_id = json.loads(corpus.read_text())["dataset"]["id"]
    declared = [{"use": "few-shot", "corpus": dataset_id, "segments": ["development"]}]
    result, card = _run(pytester, corpus, declared)
    assert card["method"]["exposure"] == declared
    codes = [f["code"] for f in card["flags"]]
    assert "declared_development_use" in codes
    assert "exposed_to_evaluation_data" not in codes
    assert "declares few-shot use of" in result.stdout.str()
    # declared development use is allowed (§9.2.2); the probe's upper-cased sources are a
    # degenerate output that keeps it apart on their own, so its guard flags are set aside
    view = _ranked_view(card)
    kept = tuple(flag for flag in view.flags if flag.code not in DEGENERATE_FLAGS)
    assert kept != view.flags
    assert why_not_ranked(dataclasses.replace(view, flags=kept)) is None


def test_another_corpus_or_segment_is_recorded_but_not_flagged(pytester, tmp_path):
    corpus = _corpus(tmp_path, "development")
    dataset = json.loads(corpus.read_text())["dataset"]
    declared = [
        {
            "use": "few-shot",
            "corpus": dataset["id"],
            "version": "0.0.1-other",
            "segments": ["development"],
        },
        {"use": "few-shot", "corpus": dataset["id"], "segments": ["diagnostic"]},
        {"use": "coaching", "corpus": "some-other-corpus", "segments": ["development"]},
        {"use": "few-shot", "sha256": "0" * 64, "segments": ["development"]},
    ]
    _, card = _run(pytester, corpus, declared)
    assert card["method"]["exposure"] == declared
    codes = [f["code"] for f in card["flags"]]
    assert "declared_development_use" not in codes


def test_exposure_to_the_gold_standard_scored_is_flagged_and_not_ranked(pytester, tmp_path):
    corpus = _corpus(tmp_path, "gold_standard")
    sha = hashlib.sha256(corpus.read_bytes()).hexdigest()
    declared = [{"use": "coaching", "sha256": sha, "segments": ["gold_standard"]}]
    result, card = _run(pytester, corpus, declared)
    flags = [f for f in card["flags"] if f["code"] == "exposed_to_evaluation_data"]
    assert len(flags) == 1
    assert "is not ranked" in flags[0]["message"]
    assert "exposure to gold_standard entries" in result.stdout.str()
    reason = why_not_ranked(_ranked_view(card))
    assert reason is not None
    assert "exposure" in reason
