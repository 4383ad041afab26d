"""The gate in a real session: real model outputs replayed against a better model's baseline."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest
from conftest import CORPORA, DATA, METHODS
from sacrebleu.metrics.chrf import CHRF

pytest_plugins = ["pytester"]

RUNS = DATA / "upstream-runs"
GPT55 = RUNS / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
HAIKU = RUNS / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b_report.json"
GEMINI_SME = RUNS / "run_20260612_125923_google_gemini35flash_naive_all_b25_c184e6_report.json"
SNA = CORPORA / "eng-sna-tatoeba-dev.json"


def replay(pytester, predictions, *args, corpus=SNA):
    return pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={predictions}",
        *args,
    )


def regressed_ids(baseline, now, max_drop=10.0):
    """Entries whose sentence chrF++ drops by more than max_drop, computed straight from the
    two reports' texts with sacrebleu, independently of the plugin."""
    chrf = CHRF(word_order=2)
    before = {e["id"]: e for e in json.loads(baseline.read_text(encoding="utf-8"))["entries"]}
    out = set()
    for entry in json.loads(now.read_text(encoding="utf-8"))["entries"]:
        old = chrf.sentence_score(before[entry["id"]]["predicted"], [entry["expected"]]).score
        new = chrf.sentence_score(entry["predicted"], [entry["expected"]]).score
        if old - new > max_drop:
            out.add(entry["id"])
    return out


@pytest.fixture
def baseline(pytester):
    """The main branch's card: first run with no baseline yet, then --mteval-update-baseline."""
    path = pytester.path / "baseline.json"
    first = replay(pytester, GPT55, f"--mteval-baseline={path}", "--mteval-update-baseline")
    assert first.ret == 0
    first.stdout.fnmatch_lines(
        ["*no baseline at*nothing to compare with", f"*baseline written to {path}*"]
    )
    assert "write one with --mteval-update-baseline" not in first.stdout.str()
    assert path.exists()
    return path


def failed_entry_ids(result):
    return {
        line.split("::entry-")[1].split(" ")[0]
        for line in result.outlines
        if line.startswith("FAILED") and "::entry-" in line
    }


def test_a_worse_model_fails_the_gate_and_its_regressed_entries(pytester, baseline):
    result = replay(pytester, HAIKU, f"--mteval-baseline={baseline}", "-rf")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert "Traceback" not in output
    result.stdout.fnmatch_lines(["*mteval gate*", "*composite*FAIL*"])
    expected = regressed_ids(GPT55, HAIKU)
    assert expected  # the real outputs do regress
    assert failed_entry_ids(result) == expected
    result.stdout.fnmatch_lines(
        ["*regressed:*", "*chrF++ dropped*", "source:*", "reference:*", "baseline:*", "now:*"]
    )
    assert "diff baseline -> now" in output


def test_lf_reruns_exactly_the_regressed_entries(pytester, baseline):
    replay(pytester, HAIKU, f"--mteval-baseline={baseline}")
    again = replay(pytester, HAIKU, f"--mteval-baseline={baseline}", "--lf", "-rf")
    expected = regressed_ids(GPT55, HAIKU)
    # the regressed entries, and the gate item over them
    again.assert_outcomes(failed=len(expected) + 1, deselected=47 - len(expected))
    assert failed_entry_ids(again) == expected


def test_junitxml_carries_the_inspection_cards(pytester, baseline):
    xml = pytester.path / "junit.xml"
    replay(pytester, HAIKU, f"--mteval-baseline={baseline}", f"--junitxml={xml}")
    root = ET.parse(xml).getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    gate = cases.pop(("mteval", "gate"))  # the gate is a test case of its own, and it failed
    gate_text = gate.find("failure").text or ""
    assert gate_text.startswith("gate      FAILED: composite")
    assert "limit" in gate_text  # the verdict table
    assert "verdict" in gate_text
    texts = [f.text or "" for c in cases.values() for f in c.iter("failure")]
    assert len(texts) == len(regressed_ids(GPT55, HAIKU))
    assert all("reference:" in t and "diff baseline -> now" in t for t in texts)
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert int(suite.get("failures")) == len(texts) + 1


def test_the_same_run_against_itself_passes(pytester, baseline):
    result = replay(pytester, GPT55, f"--mteval-baseline={baseline}")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*mteval gate*"])


def test_the_gate_is_recorded_on_the_card(pytester, baseline):
    card = pytester.path / "card.json"
    replay(pytester, HAIKU, f"--mteval-baseline={baseline}", f"--mteval-run-card={card}")
    gate = json.loads(card.read_text(encoding="utf-8"))["gate"]
    assert gate["passed"] is False
    assert gate["options"]["significance"] == 0.05
    assert gate["baseline_run_card_hash"] == json.loads(baseline.read_text())["run_card_hash"]


def test_a_reference_harness_report_is_a_baseline(pytester):
    result = replay(pytester, HAIKU, f"--mteval-baseline={GPT55}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*reference-harness report*"])


def test_a_baseline_of_another_dataset_is_refused_clearly(pytester):
    result = replay(pytester, HAIKU, f"--mteval-baseline={GEMINI_SME}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "--mteval-allow-dataset-change" in output
    assert "Traceback" not in output


def test_a_malformed_baseline_names_the_file(pytester, baseline):
    broken = pytester.path / "broken.json"
    card = json.loads(baseline.read_text(encoding="utf-8"))
    card["scores"]["composite"] = 0.99  # edited after sealing
    broken.write_text(json.dumps(card), encoding="utf-8")
    result = replay(pytester, HAIKU, f"--mteval-baseline={broken}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert f"{broken}: run_card_hash does not match" in output
    assert "Traceback" not in output


def test_update_baseline_refuses_a_partial_run(pytester, baseline):
    before = baseline.read_bytes()
    result = replay(
        pytester,
        GPT55,
        f"--mteval-baseline={baseline}",
        "--mteval-update-baseline",
        "-k",
        "tatoeba_1",
    )
    result.stdout.fnmatch_lines(["*not updated: the run did not cover the whole corpus*"])
    assert baseline.read_bytes() == before


def test_templates_work_as_they_are(pytester):
    """conftest_templates/ copied into a fresh repository, with --strict-config."""
    templates = CORPORA.parent / "conftest_templates"
    for name in ("conftest.py", "test_translation_rules.py"):
        shutil.copy(templates / name, pytester.path / name)
    shutil.copy(templates / "pyproject-mteval.toml", pytester.path / "pyproject.toml")
    (pytester.path / "corpora").mkdir()
    shutil.copy(SNA, pytester.path / "corpora" / SNA.name)
    # the template names the method "my-method": here a folder of that name at the root
    shutil.copytree(METHODS / "replay", pytester.path / "my-method")
    result = pytester.runpytest(
        "--strict-config", f"--mteval-method-arg=predictions={GPT55}", "-p", "no:randomly"
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert len(list((pytester.path / ".mteval" / "runs").glob("*.json"))) == 1
    result.stdout.fnmatch_lines(["*no baseline at*"])
    workflows = (templates / "github-actions-mteval.yml").read_text() + (
        templates / "gitlab-ci-mteval.yml"
    ).read_text()
    options = {
        line.split()[0] for line in pytester.runpytest("--help").outlines if "--mteval-" in line
    }
    for token in {w.strip("\"'`") for w in workflows.split() if w.startswith("--mteval-")}:
        assert token.split("=")[0] in options, token


def test_two_workers_give_the_serial_verdict(pytester, baseline):
    serial = pytester.runpytest_subprocess(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={HAIKU}",
        f"--mteval-baseline={baseline}",
        "-p",
        "no:xdist",
        "-rf",
    )
    parallel = pytester.runpytest_subprocess(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={HAIKU}",
        f"--mteval-baseline={baseline}",
        "-n",
        "2",
        "-rf",
    )
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    for result in (serial, parallel):  # the gate is an item, reported by the controller
        assert any(line.startswith("FAILED mteval::gate") for line in result.outlines)
    assert failed_entry_ids(parallel) == failed_entry_ids(serial) == regressed_ids(GPT55, HAIKU)


@pytest.mark.parametrize("style", ["line", "short", "long"])
def test_tb_styles_shape_the_inspection_cards(pytester, baseline, style):
    result = replay(pytester, HAIKU, f"--mteval-baseline={baseline}", f"--tb={style}")
    out = result.stdout.str()
    failures = out.split("= FAILURES =")[1].split("= mteval =")[0]
    regressed = regressed_ids(GPT55, HAIKU)
    assert sum(f"entry {i} regressed" in failures for i in regressed) == len(regressed)
    if style == "line":  # one line per entry (and pytest's 50-character crash line)
        assert "reference:" not in failures
        assert "metrics:    baseline -> now" not in failures
        lines = [line for line in failures.splitlines() if line.strip(" =")]
        assert len(lines) == 2 * (len(regressed) + 1)  # entries and the gate
    elif style == "short":  # reasons and the four texts, no metric table or diff
        assert failures.count("reference:") == len(regressed)
        assert "metrics:    baseline -> now" not in failures
    else:
        assert failures.count("diff baseline -> now") == len(regressed)
