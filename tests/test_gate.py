"""The session gate on real outputs: claude-haiku-4.5 replayed against a gpt-5.5 baseline on
the same eng-sna corpus regresses; a run against itself does not."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import FLORES_HEAD, METHODS
from replayed_runs import DEEPSEEK, GEMINI_SME, GPT55, HAIKU, card_dict, replay_card, report

from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cards.gate import evaluate_gate, evaluate_runs, gate_lines
from pytest_mteval.cards.runcard import built
from pytest_mteval.cli.main import main
from pytest_mteval.metrics import sacre
from pytest_mteval.scoring.gate_options import GateOptionError, GateOptions, parse_metric_gate


def _row(verdict, metric):
    (row,) = [r for r in verdict.rows if r.metric == metric]
    return row


def test_haiku_replayed_against_a_gpt55_baseline_fails_the_gate():
    verdict = evaluate_gate(
        read_run(replay_card(GPT55)), built(card_dict(replay_card(HAIKU))), GateOptions()
    )
    assert not verdict.passed
    composite = _row(verdict, "composite")
    assert not composite.passed
    assert composite.delta is not None
    assert composite.delta < 0
    assert composite.ci_upper is not None
    assert composite.ci_upper < 0
    assert composite.p_value is not None
    assert composite.p_value < 0.05
    assert verdict.common_entries == 47


def test_a_run_gated_against_itself_passes():
    path = replay_card(HAIKU)
    verdict = evaluate_gate(
        read_run(path), built(card_dict(path)), GateOptions(metric_gates={"ter": 0})
    )
    assert verdict.passed
    assert verdict.to_json()["baseline_run_card_hash"] == card_dict(path)["run_card_hash"]
    for row in verdict.rows:
        assert row.delta == 0
        assert row.p_value == 1.0


def test_a_harness_report_works_as_the_baseline_of_our_card():
    verdict = evaluate_gate(read_run(GPT55), built(card_dict(replay_card(HAIKU))), GateOptions())
    assert not verdict.passed
    same = evaluate_gate(read_run(HAIKU), built(card_dict(replay_card(HAIKU))), GateOptions())
    assert same.passed


def _sacrebleu_paired(tmp_path, refs, base, cand):
    files = []
    for name, lines in (("ref", refs), ("base", base), ("cand", cand)):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        files.append(str(path))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sacrebleu",
            files[0],
            "-i",
            files[1],
            files[2],
            "-m",
            "chrf",
            "--chrf-word-order",
            "2",
            "--paired-bs",
            "-w",
            "4",
            "-f",
            "text",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={"SACREBLEU_SEED": "12345", "PATH": ""},
    ).stdout
    scores = [float(s) for s in re.findall(r"│\s+(\d+\.\d+) \(", out)]
    (p_value,) = [float(p) for p in re.findall(r"\(p = ([0-9.]+)\)", out)]
    return scores, p_value


def test_entries_are_paired_by_id_whatever_their_order(tmp_path):
    """The gate's chrF++ values and p-value equal sacrebleu --paired-bs on files aligned by
    entry id, even when the baseline lists its entries in another order."""
    shuffled = report(GPT55)
    random.Random(7).shuffle(shuffled["entries"])
    path = tmp_path / "shuffled_report.json"
    path.write_text(json.dumps(shuffled), encoding="utf-8")
    options = GateOptions(metric_gates={"chrf_plus_plus": 0.0})
    verdict = evaluate_runs(read_run(path), read_run(HAIKU), options)
    row = _row(verdict, "chrf_plus_plus")
    gpt = {e["id"]: e for e in report(GPT55)["entries"]}
    haiku = report(HAIKU)["entries"]
    (base, cand), p_value = _sacrebleu_paired(
        tmp_path,
        [gpt[e["id"]]["expected"] for e in haiku],
        [gpt[e["id"]]["predicted"] for e in haiku],
        [e["predicted"] for e in haiku],
    )
    assert row.baseline == pytest.approx(base, abs=5e-5)
    assert row.now == pytest.approx(cand, abs=5e-5)
    assert row.p_value == pytest.approx(p_value, abs=1e-4)


def test_a_drop_that_is_not_significant_passes_unless_the_test_is_disabled():
    """deepseek's exact-match rate is below gpt-5.5's, but not significantly."""
    tested = evaluate_runs(
        read_run(GPT55), read_run(DEEPSEEK), GateOptions(metric_gates={"exact_match_rate": 0})
    )
    exact = _row(tested, "exact_match_rate")
    assert exact.delta is not None
    assert exact.delta < 0
    assert exact.p_value is not None
    assert exact.p_value >= 0.05
    assert exact.passed
    assert "not significant" in exact.verdict
    untested = evaluate_runs(
        read_run(GPT55),
        read_run(DEEPSEEK),
        GateOptions(metric_gates={"exact_match_rate": 0}, significance=0),
    )
    exact = _row(untested, "exact_match_rate")
    assert not exact.passed
    assert exact.p_value is None
    assert exact.ci_lower is None


def test_a_drop_within_the_allowed_maximum_passes():
    verdict = evaluate_runs(read_run(GPT55), read_run(HAIKU), GateOptions(max_drop=0.25))
    assert verdict.passed
    assert "within the allowed drop" in _row(verdict, "composite").verdict


def test_ter_is_gated_as_lower_is_better():
    verdict = evaluate_runs(
        read_run(GPT55), read_run(HAIKU), GateOptions(max_drop=None, metric_gates={"ter": 1.0})
    )
    ter = _row(verdict, "ter")
    assert ter.delta is not None
    assert ter.delta > 0
    assert not ter.passed
    reverse = evaluate_runs(
        read_run(HAIKU), read_run(GPT55), GateOptions(max_drop=None, metric_gates={"ter": 1.0})
    )
    assert reverse.passed


def test_composites_are_recomputed_over_the_metrics_both_runs_measured():
    """This run also measured FST acceptance (profile A); the report did not. Both composites
    use profile A over chrF++ and exact match only, and the verdict says so."""
    base = read_run(GPT55)
    now = copy.deepcopy(read_run(HAIKU))
    now.profile = "A"
    now.metrics["fst_acceptance_rate"] = 0.99
    verdict = evaluate_runs(base, now, GateOptions())
    composite = _row(verdict, "composite")
    # profile A: chrF++ 0.15, exact match 0.05
    expected_before = (
        0.15 * base.metrics["chrf_plus_plus"] / 100 + 0.05 * base.metrics["exact_match_rate"]
    ) / 0.20
    expected_now = (
        0.15 * now.metrics["chrf_plus_plus"] / 100 + 0.05 * now.metrics["exact_match_rate"]
    ) / 0.20
    assert composite.baseline == pytest.approx(expected_before)
    assert composite.now == pytest.approx(expected_now)
    notes = " ".join(verdict.notes)
    assert "composites recomputed over the metrics both runs measured" in notes
    assert "only this run has fst_acceptance_rate" in notes
    assert "profile" in notes


def test_a_gated_metric_one_run_lacks_fails_with_a_reason():
    verdict = evaluate_runs(
        read_run(GPT55), read_run(HAIKU), GateOptions(metric_gates={"fst_acceptance_rate": 0.1})
    )
    row = _row(verdict, "fst_acceptance_rate")
    assert not row.passed
    assert "cannot compare" in row.verdict


def test_entries_whose_reference_changed_are_left_out():
    base = copy.deepcopy(read_run(GPT55))
    first = next(iter(base.rows))
    base.rows[first]["expected"] = "changed"
    verdict = evaluate_runs(base, read_run(GPT55), GateOptions())
    assert verdict.common_entries == 46
    assert any("1 entries whose source or reference changed" in n for n in verdict.notes)


def test_runs_with_nothing_in_common_fail_with_a_reason():
    verdict = evaluate_runs(read_run(GEMINI_SME), read_run(GPT55), GateOptions())
    assert not verdict.passed
    assert "no entry in common" in _row(verdict, "composite").verdict


def test_fail_under_needs_no_baseline():
    card = card_dict(replay_card(GPT55))
    composite = card["scores"]["composite"]
    low = evaluate_gate(None, built(card), GateOptions(fail_under=round(composite - 0.05, 2)))
    assert low.passed
    floor = round(composite + 0.05, 2)
    high = evaluate_gate(None, built(card), GateOptions(fail_under=floor))
    assert not high.passed
    assert f"< {floor:g}" in high.rows[0].verdict
    nothing = evaluate_gate(None, built(card), GateOptions())
    assert nothing.passed
    assert nothing.rows == []
    assert any("no baseline" in n for n in nothing.notes)


def test_the_gate_ends_in_a_verdict_never_a_traceback():
    broken = {**card_dict(replay_card(GPT55)), "results": [{"no": "entry id"}]}
    verdict = evaluate_gate(read_run(GPT55), built(broken), GateOptions())
    assert not verdict.passed
    assert "could not be evaluated" in verdict.notes[0]
    assert "FAILED" in gate_lines(verdict)[-1]


def test_gate_lines_show_each_gated_metric():
    options = GateOptions(metric_gates={"chrf_plus_plus": 1.0}, fail_under=0.3)
    verdict = evaluate_gate(read_run(GPT55), built(card_dict(replay_card(HAIKU))), options)
    lines = gate_lines(verdict)
    text = "\n".join(lines)
    assert lines[0].startswith("against")
    assert "95% CI" in text
    for metric in ("composite", "chrf_plus_plus", "composite (this run)"):
        assert any(line.startswith(metric + " ") for line in lines), metric
    assert "70.20" in text
    assert "49.82" in text
    assert lines[-1] == "gate      FAILED: composite, chrf_plus_plus"
    recorded = verdict.to_json()
    assert recorded["baseline_run_card_hash"] is None  # a reference-harness report has none
    assert recorded["options"]["metric_gates"] == {"chrf_plus_plus": 1.0}
    assert [m["metric"] for m in recorded["metrics"]] == [
        "composite (this run)",
        "composite",
        "chrf_plus_plus",
    ]
    json.dumps(recorded, allow_nan=False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("chrf_plus_plus:1.0", ("chrf_plus_plus", 1.0)), ("composite:0.02", ("composite", 0.02))],
)
def test_metric_gates_parse(text, expected):
    assert parse_metric_gate(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("chrf_plus_plus", "METRIC:MAX_DROP"),
        ("chrf_plus_plus:lots", "METRIC:MAX_DROP"),
        (":1", "METRIC:MAX_DROP"),
        ("chrf:1", "unknown metric 'chrf'"),
        # the drop follows the last colon: the rest is the metric, named in the refusal
        ("chrf_plus_plus:1:2", "unknown metric 'chrf_plus_plus:1' in a gate; known: "),
        ("bleu:-1", ">= 0"),
        ("bleu:inf", ">= 0"),
    ],
)
def test_bad_metric_gates_are_refused_with_a_message(text, message):
    with pytest.raises(GateOptionError, match=re.escape(message)):
        parse_metric_gate(text)


def test_significance_outside_0_1_is_refused():
    with pytest.raises(GateOptionError, match="significance"):
        GateOptions(significance=1.5)


def test_values_recomputed_from_card_rows_equal_the_cards_own_scores():
    base_card, now_card = card_dict(replay_card(GPT55)), card_dict(replay_card(HAIKU))
    options = GateOptions(metric_gates={"chrf_plus_plus": 0, "bleu": 0, "ter": 0})
    verdict = evaluate_gate(read_run(replay_card(GPT55)), built(now_card), options)
    for metric in ("chrf_plus_plus", "bleu", "ter"):
        row = _row(verdict, metric)
        assert row.baseline == pytest.approx(base_card["scores"][metric], abs=1e-9)
        assert row.now == pytest.approx(now_card["scores"][metric], abs=1e-9)


def test_the_runs_records_supply_statistics_the_card_rows_lack(monkeypatch):
    """Records carry each entry's sufficient statistics: given them, none is recomputed."""
    card = card_dict(replay_card(HAIKU))
    records = [
        {**r, "stats": sacre.segment_stats(r["predicted"], r["expected"])} for r in card["results"]
    ]
    options = GateOptions(metric_gates={"chrf_plus_plus": 0, "ter": 0})
    baseline = read_run(GPT55)  # a report's rows are scored when it is read
    plain = evaluate_gate(baseline, built(card), options)

    def recompute(*_args):
        raise AssertionError("statistics recomputed")

    monkeypatch.setattr(sacre, "family_segment_stats", recompute)
    fed = evaluate_gate(baseline, built(card), options, records)
    assert fed.rows == plain.rows
    assert evaluate_gate(baseline, built(card), options).notes[0].startswith("the gate could not")


def _with_fst(path, rate_offset=0.0, per_entry=True):
    """A real run with per-entry FST counts (every word accepted but the first); without
    ``per_entry`` its rows do not carry them (a card of a family that did not record them)."""
    run = copy.deepcopy(read_run(path))
    words = accepted = 0
    for row in run.rows.values():
        count = len((row["predicted"] or "").split())
        if per_entry:
            row["fst_words"], row["fst_accepted_words"] = count, max(0, count - 1)
        words, accepted = words + count, accepted + max(0, count - 1)
    run.metrics["fst_acceptance_rate"] = accepted / words + rate_offset
    run.profile = "A"
    return run


def test_per_entry_counts_make_a_metric_resampled_and_tested():
    options = GateOptions(metric_gates={"fst_acceptance_rate": 0.0})
    verdict = evaluate_runs(_with_fst(GPT55), _with_fst(HAIKU), options)
    row = _row(verdict, "fst_acceptance_rate")
    assert row.p_value is not None
    assert row.ci_lower is not None
    assert not any("held at their run-level values" in n for n in verdict.notes)


def test_a_recorded_value_its_rows_do_not_reproduce_is_recomputed_from_the_rows():
    """One definition: over the common entries the value is the rows' statistics finalised,
    whatever the card recorded (here 0.05 below what its rows give)."""
    options = GateOptions(metric_gates={"fst_acceptance_rate": 0.0})
    now = _with_fst(HAIKU, rate_offset=-0.05)
    verdict = evaluate_runs(_with_fst(GPT55), now, options)
    row = _row(verdict, "fst_acceptance_rate")
    assert row.now == pytest.approx(now.metrics["fst_acceptance_rate"] + 0.05)
    assert row.p_value is not None
    assert not any("held at their run-level values" in n for n in verdict.notes)


def test_a_metric_without_per_entry_statistics_is_held_fixed_and_said_so():
    options = GateOptions(metric_gates={"fst_acceptance_rate": 0.0})
    now = _with_fst(HAIKU, rate_offset=-0.05, per_entry=False)
    verdict = evaluate_runs(_with_fst(GPT55), now, options)
    row = _row(verdict, "fst_acceptance_rate")
    assert row.now == pytest.approx(now.metrics["fst_acceptance_rate"])
    assert row.p_value is None
    assert row.verdict.endswith("(significance held fixed)")  # an untestable drop fails
    assert any(
        n.startswith("held at their run-level values") and "fst_acceptance_rate" in n
        for n in verdict.notes
    )


def test_a_metric_held_fixed_is_left_out_of_the_composite():
    """Held at run-level values, the FST rate would move every resampled composite alike; the
    composites are profile A over chrF++ (0.15) and exact match (0.05) alone."""
    base, now = _with_fst(GPT55), _with_fst(HAIKU, rate_offset=-0.05, per_entry=False)
    verdict = evaluate_runs(base, now, GateOptions())
    composite = _row(verdict, "composite")
    for run, value in ((base, composite.baseline), (now, composite.now)):
        chrf, exact = run.metrics["chrf_plus_plus"], run.metrics["exact_match_rate"]
        assert value == pytest.approx((0.15 * chrf / 100 + 0.05 * exact) / 0.20)
    assert composite.p_value is not None
    assert any(
        n.startswith("composites recomputed without the metrics held fixed (fst_acceptance_rate)")
        for n in verdict.notes
    )


#: FLORES devtest entries 11-19, 110-199, 2, 20-29 and 200-299: 211 of 1012.
SUBSET = "(entry-1 and not entry-10) or entry-2"


@functools.cache
def _identity_card(*args: str) -> Path:
    """The card of a real session copying each FLORES eng-fra source as its translation."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-identity-"))
    card = folder / "card.json"
    subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            f"--mteval-corpus={FLORES_HEAD}", f"--mteval-method={METHODS / 'identity'}",
            f"--mteval-run-card={card}", *args,
        ],
        cwd=folder, capture_output=True, check=False,
    )  # fmt: skip
    assert card.exists()
    return card


def _hallucinated(card, ids):
    """How many of ``ids`` the card counts as hallucinated, from its rows and evidence."""
    listed = set(card["hallucination"]["hallucination_entries"])
    return sum(
        1
        for row in card["results"]
        if row["entry_id"] in ids and (row["hallucination_detected"] or row["entry_id"] in listed)
    )


def test_identical_predictions_on_a_subset_of_the_baseline_pass(capsys):
    """The same outputs for 211 of the baseline's 1012 entries, two of them flagged as
    hallucinations: the run-level rate differs (2/1012 vs 2/211), the entries do not."""
    base_path, now_path = _identity_card(), _identity_card("-k", SUBSET)
    base, now = card_dict(base_path), card_dict(now_path)
    ids = {row["entry_id"] for row in now["results"]}
    assert len(ids) == 211
    assert base["scores"]["hallucination_rate"] != now["scores"]["hallucination_rate"]
    flagged = _hallucinated(base, ids)
    assert flagged == _hallucinated(now, ids) > 0
    options = GateOptions(metric_gates={"hallucination_rate": 0})
    verdict = evaluate_gate(read_run(base_path), built(now), options)
    assert verdict.passed, gate_lines(verdict)
    assert _row(verdict, "composite").delta == 0
    assert _row(verdict, "composite").p_value == 1.0
    rate = _row(verdict, "hallucination_rate")
    assert rate.baseline == rate.now == pytest.approx(flagged / len(ids))
    assert rate.p_value == 1.0
    assert not any("held at their run-level values" in n for n in verdict.notes)
    assert main(["compare", str(base_path), str(now_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("gate PASSED")
