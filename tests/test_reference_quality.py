"""``dataset.reference_quality`` (issue 15): a corpus may say which reference it uses and that
experts judged it worse than machine outputs; the card carries it, the terminal summary and
``mteval compare`` show it, and a malformed block is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import METHODS, envelope, flores_entries

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main
from pytest_mteval.corpus import CorpusError, load_corpus

pytest_plugins = ["pytester"]

WORSE = {
    "reference": "ref-A of WMT21 TED zh-en",
    "judgment": "worse_than_outputs",
    "judged_by": "MQM expert raters",
    "evidence": "mean MQM -5.52; MT systems -2.99 to -1.65",
}


def _corpus(folder: Path, **dataset: object) -> Path:
    path = folder / "corpus.json"
    data = envelope(flores_entries(3), **dataset)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_block_is_optional_and_read_when_given(tmp_path: Path) -> None:
    assert load_corpus(_corpus(tmp_path)).dataset.reference_quality is None
    quality = load_corpus(_corpus(tmp_path, reference_quality=WORSE)).dataset.reference_quality
    assert quality is not None
    assert quality.judgment == "worse_than_outputs"
    assert quality.describe() == (
        "ref-A of WMT21 TED zh-en; judged WORSE than machine outputs: reference-based scores "
        "may rank them backwards by MQM expert raters (mean MQM -5.52; MT systems -2.99 to -1.65)"
    )
    unjudged = {"reference": "the translator's own draft"}
    quality = load_corpus(_corpus(tmp_path, reference_quality=unjudged)).dataset.reference_quality
    assert quality is not None
    assert quality.describe() == "the translator's own draft; quality not judged"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"reference": "refB", "judgment": "worse_than_outputs"},
            "field 'reference_quality': judgment 'worse_than_outputs' needs 'judged_by'",
        ),
        (
            {"reference": "refB", "judgment": "bad", "judged_by": "me"},
            "field 'reference_quality.judgment': Input should be 'better_than_outputs'",
        ),
        ({"judgment": "not_judged"}, "field 'reference_quality.reference': required field"),
        ({"reference": "  "}, "field 'reference_quality.reference': empty or only whitespace"),
    ],
)
def test_a_malformed_block_is_one_line_naming_file_and_field(
    tmp_path: Path, block: dict[str, str], message: str
) -> None:
    path = _corpus(tmp_path, reference_quality=block)
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: dataset: {message}")
    assert "\n" not in text


def test_the_card_summary_and_compare_carry_it(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(pytester.path, reference_quality=WORSE)
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
    )
    raw = runcard.load(card)
    runcard.verify(raw, card)  # the block is part of the sealed, schema-checked card
    assert raw["dataset"]["reference_quality"] == WORSE
    forged = json.loads(json.dumps(raw))
    del forged["dataset"]["reference_quality"]["judged_by"]  # a verdict nobody made ...
    runcard.seal(forged)  # ... with the hash recomputed to match
    with pytest.raises(runcard.RunCardError, match=r"dataset\.reference_quality"):
        runcard.verify(forged, card)
    line = load_corpus(corpus).dataset.reference_quality.describe()  # type: ignore[union-attr]
    result.stdout.fnmatch_lines([f"reference*{line}"])

    assert main(["compare", str(card), str(card)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"reference (A and B): {line}"

    plain = pytester.path / "plain"
    plain.mkdir()
    other = _corpus(plain)
    without = plain / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={other}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={without}",
    ).stdout.no_fnmatch_line("reference *")
    assert "reference_quality" not in runcard.load(without)["dataset"]
    main(["compare", str(without), str(card), "--allow-dataset-change", "--format=markdown"])
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == f"> reference (B): {line}"
