"""Corpus and sentence scores agree with sacrebleu's own command line on real translations."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import CORPORA, DATA, METHODS

pytest_plugins = ["pytester"]

HAIKU = (
    DATA
    / "upstream-runs"
    / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b_report.json"
)


def sacrebleu_cli(tmp_path, hyps, refs, *args):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(hyps) + "\n", encoding="utf-8")
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp), "-w", "6", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "card.json"
    code = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--mteval-corpus={CORPORA / 'eng-sna-tatoeba-dev.json'}",
            f"--mteval-method={METHODS / 'replay'}",
            f"--mteval-method-arg=predictions={HAIKU}",
            f"--mteval-run-card={out}",
        ],
        cwd=out.parent,
        capture_output=True,
        text=True,
    ).returncode
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_corpus_scores_equal_the_cli(card, tmp_path):
    rows = card["results"]
    stdout = sacrebleu_cli(
        tmp_path,
        [r["predicted"] for r in rows],
        [r["expected"] for r in rows],
        "-m",
        "bleu",
        "chrf",
        "ter",
        "--chrf-word-order",
        "2",
        "-f",
        "json",
    )
    by_name = {score["name"]: score for score in json.loads(stdout)}
    scores = card["scores"]
    assert scores["chrf_plus_plus"] == pytest.approx(by_name["chrF2++"]["score"], abs=1e-4)
    assert scores["bleu"] == pytest.approx(by_name["BLEU"]["score"], abs=1e-4)
    assert scores["ter"] == pytest.approx(by_name["TER"]["score"], abs=1e-4)
    assert card["signatures"]["chrf_plus_plus"] == by_name["chrF2++"]["signature"]


@pytest.mark.parametrize(
    ("metric", "field", "args"),
    [
        ("chrf", "chrf_score", ["--chrf-word-order", "2"]),
        ("bleu", "bleu_score", []),  # the CLI's sentence mode uses effective order, as we do
    ],
)
def test_sentence_scores_equal_the_cli(card, tmp_path, metric, field, args):
    rows = card["results"]
    stdout = sacrebleu_cli(
        tmp_path,
        [r["predicted"] for r in rows],
        [r["expected"] for r in rows],
        "-m",
        metric,
        "--sentence-level",
        "-b",
        *args,
    )
    cli = [float(line) for line in stdout.split()]
    assert [r[field] for r in rows] == pytest.approx(cli, abs=1e-4)


def test_exact_match_normalizes_unicode_and_whitespace(pytester, tmp_path):
    from conftest import envelope

    composed = "Ça va très bien."
    decomposed = "C\u0327a va tre\u0300s bien."
    corpus = tmp_path / "c.json"
    corpus.write_text(
        json.dumps(envelope([{"id": 1, "source": f"  {decomposed}\n", "reference": composed}])),
        encoding="utf-8",
    )
    card = pytester.path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
    )
    assert json.loads(card.read_text(encoding="utf-8"))["results"][0]["exact_match"] is True
