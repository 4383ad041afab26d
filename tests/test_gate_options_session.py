"""Every gate option in a real session, from the command line and as an ini key, at its edges.

What is asserted is what a CI user sees: the exit status, the verdict line, the junit counts
and the gate inputs recorded on the run card. Exact boundaries (a drop exactly at its limit, a
floor exactly met) are built from two real runs replayed from recorded model outputs: the
limit is the run's own delta, checked first against an independent computation (sacrebleu,
the weights of docs/SCORING.md), then passed back as the limit and one float below it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import METHODS
from sacrebleu.metrics.chrf import CHRF
from test_composite_weights import INVERTED, PERCENT, documented_weights
from test_gate_session import GPT55, HAIKU, SNA, failed_entry_ids
from test_metric_catalog import LETTER_SHARE, PLUGIN, SNA_CORPUS

from pytest_mteval.cards import runcard
from pytest_mteval.metrics import catalog

pytest_plugins = ["pytester"]

CHRF_PP = CHRF(word_order=2)


# --- helpers ----------------------------------------------------------------------------------


def report_rows(path: Path) -> dict[str, dict[str, Any]]:
    return {str(e["id"]): e for e in json.loads(path.read_text(encoding="utf-8"))["entries"]}


def session(pytester: pytest.Pytester, predictions: Path, *args: str) -> pytest.RunResult:
    """A replay run writing card.json and junit.xml into the test's directory."""
    for stale in ("card.json", "junit.xml"):
        (pytester.path / stale).unlink(missing_ok=True)
    return pytester.runpytest(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        f"--junitxml={pytester.path / 'junit.xml'}",
        "-rf",
        *args,
    )


def card(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "card.json").read_text(encoding="utf-8"))


def junit(pytester: pytest.Pytester) -> tuple[int, int]:
    """(entry tests, entry failures) as a CI server reads them from the junit file, once the
    session gate's own item (``mteval::gate``) is checked: present, and failed exactly when
    the card's gate failed."""
    suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    tests, failures = int(suite.get("tests", -1)), int(suite.get("failures", -1))
    gates = [c for c in suite.iter("testcase") if c.get("name") == "gate"]
    if not gates:  # no baseline, floor or metric gate in force: nothing to report as an item
        assert card(pytester)["gate"]["baseline"] is None
        return tests, failures
    assert len(gates) == 1, "the gate is reported as an item of its own"
    gate_failed = gates[0].find("failure") is not None
    assert gate_failed is not card(pytester)["gate"]["passed"]
    return tests - 1, failures - int(gate_failed)


def gate_row(card: dict[str, Any], metric: str) -> dict[str, Any]:
    rows = [row for row in card["gate"]["metrics"] if row["metric"] == metric]
    assert len(rows) == 1, card["gate"]
    return rows[0]


def option(pytester: pytest.Pytester, form: str, key: str, value: str) -> list[str]:
    """The option as command-line arguments, or written to an ini file (returning no args)."""
    if form == "cli":
        return [f"--mteval-{key}={value}"]
    pytester.makeini(f"[pytest]\nmteval_{key.replace('-', '_')} = {value}\n")
    return []


def below(x: float) -> float:
    return math.nextafter(x, -math.inf)


def above(x: float) -> float:
    return math.nextafter(x, math.inf)


def composite_by_hand(scores: dict[str, Any]) -> float:
    """Profile B's composite from a card's scores, with the documented weights."""
    table = documented_weights("B")
    total = weight = 0.0
    for name, w in table.items():
        value = scores.get(name)
        if value is None:
            continue
        value = value / 100 if name in PERCENT else value
        total += w * (1 - value if name in INVERTED else value)
        weight += w
    return total / weight


def sentence_chrf(report: Path) -> dict[str, float]:
    return {
        key: CHRF_PP.sentence_score(row["predicted"], [row["expected"]]).score
        for key, row in report_rows(report).items()
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The cards of the two real runs with no gate: GPT-5.5 (the baseline) and Claude Haiku."""
    folder = tmp_path_factory.mktemp("reference")
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:asyncio -p no:cacheprovider"}
    cards = {}
    for name, predictions in (("gpt55", GPT55), ("haiku", HAIKU)):
        path = folder / f"{name}.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                f"--mteval-corpus={SNA}",
                f"--mteval-method={METHODS / 'replay'}",
                f"--mteval-method-arg=predictions={predictions}",
                f"--mteval-run-card={path}",
            ],
            cwd=folder,
            env=env,
            check=True,
            capture_output=True,
        )
        cards[name] = {"path": path, "card": json.loads(path.read_text(encoding="utf-8"))}
    return cards


@pytest.fixture
def baseline(pytester: pytest.Pytester, reference: dict[str, dict[str, Any]]) -> Path:
    path = pytester.path / "baseline.json"
    shutil.copy(reference["gpt55"]["path"], path)
    return path


# --- --mteval-max-drop and --mteval-significance 0 --------------------------------------------


def test_an_unchanged_run_passes_max_drop_0_with_significance_off(pytester, baseline):
    """Zero delta, zero allowed drop, no p-value to rescue it: drop <= max_drop must hold."""
    result = session(pytester, GPT55, f"--mteval-baseline={baseline}", "--mteval-significance=0")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["composite *max drop 0  pass", "gate      PASSED"])
    recorded = card(pytester)["gate"]
    assert recorded["options"]["max_drop"] == 0.0
    assert recorded["options"]["significance"] == 0.0
    assert gate_row(card(pytester), "composite")["delta"] == 0.0
    assert junit(pytester) == (47, 0)


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_a_composite_drop_exactly_at_max_drop_passes_and_just_above_it_fails(
    pytester, baseline, reference, form
):
    by_hand = composite_by_hand(reference["gpt55"]["card"]["scores"]) - composite_by_hand(
        reference["haiku"]["card"]["scores"]
    )
    assert by_hand > 0.01  # Haiku is really worse
    first = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        "--mteval-significance=0",
        "--mteval-max-drop=1",
        "--mteval-entry-max-drop=100",
    )
    assert first.ret == pytest.ExitCode.OK
    drop = -gate_row(card(pytester), "composite")["delta"]
    assert drop == pytest.approx(by_hand, abs=1e-12)

    common = [f"--mteval-baseline={baseline}", "--mteval-entry-max-drop=100"]
    at_limit = session(
        pytester,
        HAIKU,
        *common,
        "--mteval-significance=0",
        *option(pytester, form, "max-drop", repr(drop)),
    )
    assert at_limit.ret == pytest.ExitCode.OK, at_limit.stdout.str()[-2000:]
    at_limit.stdout.fnmatch_lines(["composite *pass (within the allowed drop)", "gate      PASSED"])
    assert card(pytester)["gate"]["options"]["max_drop"] == drop
    assert junit(pytester) == (47, 0)

    over = session(
        pytester,
        HAIKU,
        *common,
        "--mteval-significance=0",
        *option(pytester, form, "max-drop", repr(below(drop))),
    )
    assert over.ret == pytest.ExitCode.TESTS_FAILED
    over.stdout.fnmatch_lines(
        [f"composite *FAIL: dropped {drop:.4g} > {below(drop):g}", "gate      FAILED: composite"]
    )
    assert card(pytester)["gate"]["passed"] is False
    assert card(pytester)["gate"]["options"]["max_drop"] == below(drop)
    assert junit(pytester) == (47, 0)  # the entries passed; the session gate failed the run


# --- --mteval-significance ----------------------------------------------------------------------


def small_regression(folder: Path) -> tuple[Path, str]:
    """GPT-5.5's predictions with the one entry Haiku does worst on replaced by Haiku's."""
    gpt, haiku = sentence_chrf(GPT55), sentence_chrf(HAIKU)
    worst = max(gpt, key=lambda key: gpt[key] - haiku[key])
    assert gpt[worst] - haiku[worst] > 20
    rows = report_rows(GPT55)
    rows[worst] = report_rows(HAIKU)[worst]
    path = folder / "one-worse.jsonl"
    lines = [json.dumps({"id": key, "predicted": row["predicted"]}) for key, row in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, worst


def test_significance_decides_a_small_drop_and_0_turns_the_test_off(pytester, baseline):
    predictions, _ = small_regression(pytester.path)
    # the replaced entry regresses by more than 10 points: the entry gate is set aside here
    quiet = "--mteval-entry-max-drop=100"
    default = session(pytester, predictions, f"--mteval-baseline={baseline}", quiet)
    assert default.ret == pytest.ExitCode.OK
    default.stdout.fnmatch_lines(["composite *pass (drop not significant, p >= 0.05)"])
    row = gate_row(card(pytester), "composite")
    p_value = row["p_value"]
    assert row["delta"] < 0
    assert 0.05 <= p_value < 1
    assert card(pytester)["gate"]["options"]["significance"] == 0.05

    off = session(
        pytester, predictions, f"--mteval-baseline={baseline}", quiet, "--mteval-significance=0"
    )
    assert off.ret == pytest.ExitCode.TESTS_FAILED
    off.stdout.fnmatch_lines(["composite *FAIL: dropped * > 0", "gate      FAILED: composite"])
    assert "p <" not in off.stdout.str()
    assert card(pytester)["gate"]["options"]["significance"] == 0.0
    assert gate_row(card(pytester), "composite")["p_value"] is None  # no test was run
    assert junit(pytester) == (47, 0)


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_a_p_value_exactly_at_the_significance_passes_and_below_it_fails(pytester, baseline, form):
    predictions, _ = small_regression(pytester.path)
    quiet = "--mteval-entry-max-drop=100"
    session(pytester, predictions, f"--mteval-baseline={baseline}", quiet)
    p_value = gate_row(card(pytester), "composite")["p_value"]
    # the paired bootstrap's p-value is (1 + k) / (1 + 1000): a count, not noise
    assert round(p_value * 1001) == pytest.approx(p_value * 1001, abs=1e-9)

    at = session(
        pytester,
        predictions,
        f"--mteval-baseline={baseline}",
        quiet,
        *option(pytester, form, "significance", repr(p_value)),
    )
    assert at.ret == pytest.ExitCode.OK
    at.stdout.fnmatch_lines([f"composite *pass (drop not significant, p >= {p_value:g})"])
    assert card(pytester)["gate"]["options"]["significance"] == p_value

    stricter = session(
        pytester,
        predictions,
        f"--mteval-baseline={baseline}",
        quiet,
        *option(pytester, form, "significance", repr(above(p_value))),
    )
    assert stricter.ret == pytest.ExitCode.TESTS_FAILED
    stricter.stdout.fnmatch_lines([f"composite *FAIL: dropped *, p < {above(p_value):g}"])


# --- --mteval-gate METRIC:MAX_DROP -------------------------------------------------------------


def corpus_chrf(report: Path) -> float:
    rows = list(report_rows(report).values())
    hyps = [row["predicted"] for row in rows]
    return CHRF_PP.corpus_score(hyps, [[row["expected"] for row in rows]]).score


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_a_metric_gate_exactly_at_its_drop_passes_and_just_above_it_fails(pytester, baseline, form):
    by_sacrebleu = corpus_chrf(GPT55) - corpus_chrf(HAIKU)
    assert by_sacrebleu > 1
    relaxed = ["--mteval-max-drop=1", "--mteval-significance=0", "--mteval-entry-max-drop=100"]
    first = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        *relaxed,
        "--mteval-gate=chrf_plus_plus:100",
        "--mteval-gate=exact_match_rate:1",
    )
    assert first.ret == pytest.ExitCode.OK
    recorded = card(pytester)["gate"]
    assert recorded["options"]["metric_gates"] == {"chrf_plus_plus": 100.0, "exact_match_rate": 1.0}
    assert [row["metric"] for row in recorded["metrics"]] == [
        "composite",
        "chrf_plus_plus",
        "exact_match_rate",
    ]
    drop = -gate_row(card(pytester), "chrf_plus_plus")["delta"]
    assert drop == pytest.approx(by_sacrebleu, abs=1e-9)

    at = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        *relaxed,
        *option(pytester, form, "gate", f"chrf_plus_plus:{drop!r}"),
    )
    assert at.ret == pytest.ExitCode.OK, at.stdout.str()[-2000:]
    at.stdout.fnmatch_lines(["chrf_plus_plus *pass (within the allowed drop)", "gate      PASSED"])
    assert card(pytester)["gate"]["options"]["metric_gates"] == {"chrf_plus_plus": drop}

    over = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        *relaxed,
        *option(pytester, form, "gate", f"chrf_plus_plus:{below(drop)!r}"),
    )
    assert over.ret == pytest.ExitCode.TESTS_FAILED
    over.stdout.fnmatch_lines(
        ["chrf_plus_plus *FAIL: dropped*", "gate      FAILED: chrf_plus_plus"]
    )
    assert junit(pytester) == (47, 0)


def test_a_metric_gate_needs_no_composite_gate(pytester, baseline):
    """--mteval-gate alone: the composite is still gated by --mteval-max-drop's default 0."""
    result = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        "--mteval-gate=ter:100",  # the most TER can be limited by
        "--mteval-entry-max-drop=100",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["ter *pass*", "gate      FAILED: composite"])


@pytest.mark.parametrize(
    ("value", "message"),
    [("chrf:1", "unknown metric 'chrf'"), ("chrf_plus_plus", "expects METRIC:MAX_DROP")],
)
def test_a_bad_gate_option_is_one_line_naming_it(pytester, value, message):
    result = session(pytester, GPT55, f"--mteval-gate={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


# --- --mteval-fail-under ----------------------------------------------------------------------


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_a_floor_exactly_met_passes_and_one_float_higher_fails(pytester, reference, form):
    composite = reference["gpt55"]["card"]["scores"]["composite"]
    assert composite == pytest.approx(
        composite_by_hand(reference["gpt55"]["card"]["scores"]), abs=1e-12
    )
    met = session(pytester, GPT55, *option(pytester, form, "fail-under", repr(composite)))
    assert met.ret == pytest.ExitCode.OK
    met.stdout.fnmatch_lines(
        [f"composite (this run) *{composite:.4f}*floor {composite:g}  pass", "gate      PASSED"]
    )
    assert card(pytester)["gate"]["options"]["fail_under"] == composite
    assert junit(pytester) == (47, 0)

    missed = session(pytester, GPT55, *option(pytester, form, "fail-under", repr(above(composite))))
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(
        [f"composite (this run) *FAIL: {composite:.4f} < *", "gate      FAILED: composite*"]
    )
    assert card(pytester)["gate"]["passed"] is False
    assert card(pytester)["gate"]["options"]["fail_under"] == above(composite)
    assert junit(pytester) == (47, 0)


# --- --mteval-entry-max-drop and --mteval-entry-min-chrf ---------------------------------------


def entry_drops(reference: dict[str, dict[str, Any]]) -> dict[str, float]:
    """chrF++ drop per entry, from the two cards' rows, checked against sacrebleu."""
    before = {r["entry_id"]: r["chrf_score"] for r in reference["gpt55"]["card"]["results"]}
    after = {r["entry_id"]: r["chrf_score"] for r in reference["haiku"]["card"]["results"]}
    gpt, haiku = sentence_chrf(GPT55), sentence_chrf(HAIKU)
    for key in before:
        assert before[key] == pytest.approx(gpt[key], abs=1e-9)
        assert after[key] == pytest.approx(haiku[key], abs=1e-9)
    return {key: before[key] - after[key] for key in before}


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_an_entry_drop_exactly_at_its_limit_passes_and_one_float_less_fails(
    pytester, baseline, reference, form
):
    drops = entry_drops(reference)
    largest = max(drops.values())
    worst = {key for key, drop in drops.items() if drop == largest}
    relaxed = [f"--mteval-baseline={baseline}", "--mteval-max-drop=1"]
    at = session(
        pytester, HAIKU, *relaxed, *option(pytester, form, "entry-max-drop", repr(largest))
    )
    assert at.ret == pytest.ExitCode.OK, at.stdout.str()[-2000:]
    assert junit(pytester) == (47, 0)

    over = session(
        pytester, HAIKU, *relaxed, *option(pytester, form, "entry-max-drop", repr(below(largest)))
    )
    assert over.ret == pytest.ExitCode.TESTS_FAILED
    assert junit(pytester) == (47, len(worst))
    assert failed_entry_ids(over) == worst
    over.stdout.fnmatch_lines([f"*chrF++ dropped {largest:.2f} points*"])


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_an_entry_floor_exactly_met_passes_and_one_float_higher_fails(pytester, reference, form):
    scores = {r["entry_id"]: r["chrf_score"] for r in reference["gpt55"]["card"]["results"]}
    lowest = min(scores.values())
    assert lowest == pytest.approx(min(sentence_chrf(GPT55).values()), abs=1e-9)
    weakest = {key for key, score in scores.items() if score == lowest}
    met = session(pytester, GPT55, *option(pytester, form, "entry-min-chrf", repr(lowest)))
    assert met.ret == pytest.ExitCode.OK
    assert junit(pytester) == (47, 0)

    missed = session(
        pytester, GPT55, *option(pytester, form, "entry-min-chrf", repr(above(lowest)))
    )
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    assert junit(pytester) == (47, len(weakest))
    assert failed_entry_ids(missed) == weakest
    missed.stdout.fnmatch_lines([f"*chrF++ {lowest:.2f} is below the floor of*"])


def test_the_entry_floor_applies_only_to_entries_without_a_baseline_row(pytester, baseline):
    result = session(
        pytester, GPT55, f"--mteval-baseline={baseline}", "--mteval-entry-min-chrf=100"
    )
    assert result.ret == pytest.ExitCode.OK
    assert junit(pytester) == (47, 0)


# --- --mteval-update-baseline after a failing run ----------------------------------------------


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_a_run_whose_entries_fail_does_not_replace_the_baseline(pytester, baseline, form):
    before = baseline.read_bytes()
    flag = ["--mteval-update-baseline"] if form == "cli" else []
    if form == "ini":
        pytester.makeini("[pytest]\nmteval_update_baseline = true\n")
    # the composite is allowed to drop, so only the regressed entries fail the run
    result = session(pytester, HAIKU, f"--mteval-baseline={baseline}", "--mteval-max-drop=1", *flag)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate      PASSED", "baseline not updated: the run did not pass"])
    assert junit(pytester)[1] > 0
    assert baseline.read_bytes() == before


def test_a_run_failing_the_gate_does_not_replace_the_baseline(pytester, baseline):
    before = baseline.read_bytes()
    result = session(
        pytester,
        HAIKU,
        f"--mteval-baseline={baseline}",
        "--mteval-update-baseline",
        "--mteval-entry-max-drop=100",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate      FAILED: composite"])
    assert "baseline written" not in result.stdout.str()
    assert junit(pytester) == (47, 0)
    assert baseline.read_bytes() == before


def test_a_passing_run_replaces_the_baseline_with_its_own_card(pytester, baseline):
    result = session(pytester, GPT55, f"--mteval-baseline={baseline}", "--mteval-update-baseline")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"baseline written to {baseline}"])
    assert json.loads(baseline.read_text(encoding="utf-8")) == card(pytester)
    runcard.verify(json.loads(baseline.read_text(encoding="utf-8")), baseline)


def plugin_session(pytester: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    """A run of the eng-sna corpus with the conftest's metric plugin; its card."""
    card = pytester.path / f"{name}.json"
    result = pytester.runpytest(f"--mteval-corpus={SNA_CORPUS}", f"--mteval-run-card={card}", *args)
    assert card.exists(), result.stdout.str()
    return dict(json.loads(card.read_text(encoding="utf-8")))


def test_a_plugin_metric_is_gated_by_name_in_a_session(pytester):
    """``--mteval-gate`` names a plugin's metric: it is checked once the plugin registered it,
    and the gate judges it like a built-in (its inputs recorded on the card)."""
    try:
        pytester.makeconftest(PLUGIN)
        identity = f"--mteval-method={METHODS / 'identity'}"
        plugin_session(pytester, "before", identity)
        baseline = f"--mteval-baseline={pytester.path / 'before.json'}"
        catalog.unregister(LETTER_SHARE.name)  # a new process knows it only once its plugin runs
        card = plugin_session(
            pytester, "after", identity, baseline, "--mteval-gate=letter_share:0.25"
        )
        assert card["gate"]["options"]["metric_gates"] == {"letter_share": 0.25}
        (row,) = [r for r in card["gate"]["metrics"] if r["metric"] == "letter_share"]
        assert row["passed"] is True
        assert "0.25" in row["limit"]
        assert row["baseline"] == row["now"] == card["scores"]["letter_share"]
        refused = pytester.runpytest(
            f"--mteval-corpus={SNA_CORPUS}", identity, baseline, "--mteval-gate=letter_shar:0.25"
        )
        assert refused.ret == pytest.ExitCode.USAGE_ERROR
        refused.stderr.fnmatch_lines(["*mteval gate option: unknown metric 'letter_shar'*"])
        assert "Traceback" not in refused.stderr.str() + refused.stdout.str()
    finally:
        catalog.unregister(LETTER_SHARE.name)  # inner sessions registered it in this process
