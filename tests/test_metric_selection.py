"""--mteval-metrics / --mteval-skip-metric: which optional metrics a run computes."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import CORPORA, METHODS

from pytest_mteval.metrics.multilingual_embedder import packaged_model_file
from pytest_mteval.metrics.selection import (
    DEFAULT,
    OPTIONAL,
    MetricSelection,
    MetricSelectionError,
)

pytest_plugins = ["pytester"]


def test_semantic_is_off_by_default_and_on_when_asked():
    assert not MetricSelection().wants("semantic")
    assert not MetricSelection.parse().wants("semantic")
    assert MetricSelection.parse(["default", "semantic"]).wanted == DEFAULT | {"semantic"}
    assert MetricSelection.parse(["all"]).wanted == frozenset(OPTIONAL)
    assert MetricSelection.parse(["fst,terminology"]).wanted == {"fst", "terminology"}


def test_skip_removes_from_the_default_set():
    chosen = MetricSelection.parse(skip=["hallucination", "code_switching"])
    assert chosen.wanted == DEFAULT - {"hallucination", "code_switching"}


def test_an_unknown_metric_is_named():
    with pytest.raises(MetricSelectionError, match="'bleurt'"):
        MetricSelection.parse(["bleurt"])


def run(pytester, tmp_path, *args):
    data = json.loads((CORPORA / "fra-eng-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:4]
    corpus = tmp_path / "fra-eng-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    card = tmp_path / f"card{len(list(tmp_path.glob('card*.json')))}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
        *args,
    )
    return result, (json.loads(card.read_text(encoding="utf-8")) if card.exists() else None)


def test_a_session_skips_what_it_is_told_to(pytester, tmp_path):
    result, card = run(pytester, tmp_path, "--mteval-skip-metric=hallucination")
    assert result.ret == 0
    scores = card["scores"]
    assert scores["hallucination_rate"] is None
    assert scores["code_switching_rate"] is not None  # the rest of the default set runs
    assert scores.get("semantic_score") is None  # English target, but not asked for
    assert "hallucination_rate" not in scores["composite_metrics"]


def test_an_unknown_metric_stops_the_session(pytester, tmp_path):
    result, card = run(pytester, tmp_path, "--mteval-metrics=bleurt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown metric 'bleurt'" in result.stderr.str()
    assert card is None


def test_a_semantic_score_asked_for_but_not_computable_is_said(pytester, tmp_path):
    """Plains Cree is none of the model's languages (and without the extra there is no model
    at all): the card and the terminal say why the score is missing, instead of nothing."""
    data = json.loads((CORPORA / "eng-crk-morphodict-vocab.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:4]
    corpus = tmp_path / "crk-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    shutil.copytree(CORPORA / "resources", tmp_path / "resources")  # its orthography and FST
    card_path = tmp_path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card_path}",
        "--mteval-metrics=default,semantic",
    )
    assert result.ret == 0
    card = json.loads(card_path.read_text(encoding="utf-8"))
    assert card["scores"].get("semantic_score") is None
    (note,) = card["metrics_not_computed"]
    if packaged_model_file() is None:
        assert note.startswith("semantic: the semantic extra is not installed")
    else:
        assert (
            note
            == "semantic: its model (multilingual-e5-small) does not read the target language 'crk'"
        )
    shown = [line for line in result.stdout.lines if line.startswith("not computed")]
    assert [line.split(None, 2)[2] for line in shown] == [note]  # (no glob: note has [...])


def test_a_run_that_did_not_ask_for_the_semantic_score_says_nothing_of_it(pytester, tmp_path):
    result, card = run(pytester, tmp_path)
    assert result.ret == 0
    assert "metrics_not_computed" not in card  # cards of such runs are as they were
