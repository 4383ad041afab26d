"""``mteval compare``: side by side, significance, entries that moved, exit status."""

from __future__ import annotations

import json

import pytest
from replayed_runs import DEEPSEEK, GEMINI_SME, GPT55, HAIKU, card_dict, replay_card, report
from sacrebleu.metrics import CHRF

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.compare import compare_runs, markdown
from pytest_mteval.cli.main import main
from pytest_mteval.scoring.gate_options import GateOptions

CHRF_PP = CHRF(word_order=2)


def _run(capsys, *args: object) -> tuple[int, str]:
    code = main(["compare", *(str(a) for a in args)])
    return code, capsys.readouterr().out


def test_a_significant_regression_exits_1_and_shows_every_shared_metric(capsys):
    code, out = _run(capsys, replay_card(GPT55), replay_card(HAIKU))
    assert code == 1
    lines = out.splitlines()
    for metric in ("composite", "chrf_plus_plus", "bleu", "ter", "exact_match_rate"):
        assert any(line.startswith(metric + " ") for line in lines), metric
    assert lines[-1] == "gate FAILED: composite"
    assert "entries that regressed most" in out
    assert "entries that improved most" in out


def test_a_run_compared_with_itself_exits_0(capsys):
    code, out = _run(capsys, replay_card(HAIKU), replay_card(HAIKU))
    assert code == 0
    assert out.splitlines()[-1].startswith("gate PASSED")
    assert "regressed most" not in out


def test_the_same_gate_options_as_the_session_gate(capsys):
    code, out = _run(capsys, GPT55, HAIKU, "--max-drop", "0.3")
    assert code == 0
    code, out = _run(capsys, GPT55, HAIKU, "--max-drop", "0.3", "--gate", "chrf_plus_plus:5")
    assert code == 1
    assert out.splitlines()[-1] == "gate FAILED: chrf_plus_plus"
    code, _ = _run(capsys, GPT55, DEEPSEEK, "--max-drop", "0.3", "--gate", "exact_match_rate:0")
    assert code == 0  # exact match dropped, not significantly (p 0.07)
    code, _ = _run(
        capsys, GPT55, DEEPSEEK, "--max-drop", "0.3", "--gate", "exact_match_rate:0",
        "--significance", "0",
    )  # fmt: skip
    assert code == 1


def test_the_entries_listed_first_moved_most_by_sacrebleus_sentence_chrf():
    gpt = {e["id"]: e for e in report(GPT55)["entries"]}
    drops = sorted(
        (
            CHRF_PP.sentence_score(e["predicted"], [e["expected"]]).score
            - CHRF_PP.sentence_score(gpt[e["id"]]["predicted"], [e["expected"]]).score,
            e["id"],
        )
        for e in report(HAIKU)["entries"]
    )
    comparison = compare_runs(read_run(GPT55), read_run(HAIKU), GateOptions(), top=3)
    assert [c.entry_id for c in comparison.regressed] == [i for _, i in drops[:3]]
    assert comparison.regressed[0].delta == pytest.approx(drops[0][0])
    gains = sorted(((-d, i) for d, i in drops if d > 0))
    assert [c.entry_id for c in comparison.improved] == [i for _, i in gains[:3]]


def test_markdown_is_a_table_fit_for_a_pull_request_comment(capsys):
    code, out = _run(capsys, GPT55, replay_card(HAIKU), "--format", "markdown", "--top", "2")
    assert code == 1
    assert out.startswith("### mteval compare\n")
    assert "| metric | A | B | Δ | 95% CI of Δ | p | gate |" in out
    assert "| composite | 0.5987 | 0.4045 |" in out
    assert "**gate FAILED: composite**" in out
    assert "#### Entries that regressed most (sentence chrF++)" in out
    table_rows = [line for line in out.splitlines() if line.startswith("| tatoeba_")]
    assert len(table_rows) == 4  # two regressed, two improved
    assert all(line.count(" | ") == 5 for line in table_rows)


def test_markdown_cells_escape_pipes_and_line_breaks(tmp_path):
    edited = report(HAIKU)
    edited["entries"][0]["predicted"] = "a | b\nc"
    path = tmp_path / "edited_report.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    text = markdown(compare_runs(read_run(GPT55), read_run(path), GateOptions(), top=50))
    assert "a \\| b c" in text


def test_runs_on_different_datasets_are_refused_with_exit_2(capsys):
    code, out = _run(capsys, GPT55, GEMINI_SME)
    assert code == 2
    assert "--allow-dataset-change" in out
    code, out = _run(capsys, GPT55, GEMINI_SME, "--allow-dataset-change")
    assert code == 2  # other language pairs: nothing to compare is a usage error, not a FAIL
    assert "no entry in common" in out


def test_an_edited_card_is_refused_with_exit_2(tmp_path, capsys):
    card = card_dict(replay_card(GPT55))
    card["scores"]["chrf_plus_plus"] = 99.0
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    code, out = _run(capsys, path, replay_card(HAIKU))
    assert code == 2
    assert "run_card_hash does not match" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [(("--gate", "chrf:1"), "unknown metric"), (("--significance", "2"), "significance")],
)
def test_bad_gate_options_exit_2(capsys, args, message):
    code, out = _run(capsys, GPT55, HAIKU, *args)
    assert code == 2
    assert message in out
