"""The card is checked against its own schema (``RunCard``) before it is hashed and written.

A bug in whatever builds the card (a plugin metric, a method's card fields, a plugin's card
hook) must not be sealed into a card that later fails ``mteval verify`` as a baseline: the
session ends with one line naming the field, no traceback and no card.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import METHODS
from methods_for_tests import write_probe

from pytest_mteval.cards import runcard

pytest_plugins = ["pytester"]

#: The probe method of methods_for_tests, reporting card fields as its ``fields`` arg says.
FIELDS_PROBE = """
import json

class Probe:
    def run_card_fields(self, config):
        return json.loads(config.method_args.get("fields", "{}"))

    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"].upper(), "latency_s": 0.01}
                for e in entries]
"""

#: A metric plugin whose aggregate is whatever the test puts in AGGREGATE.
METRIC_PLUGIN = """
class Letters:
    name = "letters"

    def score_entry(self, entry, predicted):
        return {"letters": sum(ch.isalpha() for ch in predicted)}

    def aggregate(self, records):
        return AGGREGATE

def pytest_mteval_metrics(context):
    return [Letters()]
"""


def run(
    pytester: pytest.Pytester, corpus: Path, method: Path, *extra: str
) -> tuple[pytest.RunResult, Path]:
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-run-card={card}",
        *extra,
    )
    return result, card


def refused(result: pytest.RunResult, card: Path) -> str:
    """The one refusal line of a session whose card was refused; no card, no traceback."""
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
    assert not card.exists()
    lines = [line for line in result.stdout.lines if line.startswith("mteval: run card refused")]
    assert len(lines) == 1, output
    return lines[0]


def test_a_method_card_field_of_the_wrong_type_is_refused(
    pytester: pytest.Pytester,
    small_corpus: Path,
) -> None:
    probe = write_probe(pytester.path, FIELDS_PROBE)
    manifest = json.loads((probe / "method.json").read_text(encoding="utf-8"))
    manifest["args"] = {"fields": {"type": "string"}}
    (probe / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    result, card = run(
        pytester, small_corpus, probe, '--mteval-method-arg=fields={"max_retries": "three"}'
    )
    assert refused(result, card) == (
        "mteval: run card refused: field 'max_retries': Input should be a valid integer (got str)"
    )
    # the same method with a well-typed field writes a card that verifies
    card.unlink(missing_ok=True)
    result, card = run(
        pytester, small_corpus, probe, '--mteval-method-arg=fields={"max_retries": 3}'
    )
    assert result.ret == pytest.ExitCode.OK
    written = runcard.load(card)
    runcard.verify(written, card)
    assert written["max_retries"] == 3


@pytest.mark.parametrize(
    ("aggregate", "words"),
    [
        ("0.5", "field 'scores.plugin_metrics.letters': Input should be a valid dictionary"),
        ("{'ids': {1, 2}}", "field 'scores.plugin_metrics.letters.ids' is not plain JSON"),
        ("{'rate': float('nan')}", "field 'scores.plugin_metrics.letters.rate' is not plain"),
    ],
)
def test_a_plugin_metric_aggregate_that_breaks_the_card_is_refused(
    pytester: pytest.Pytester,
    small_corpus: Path,
    aggregate: str,
    words: str,
) -> None:
    pytester.makeconftest(f"AGGREGATE = {aggregate}\n{METRIC_PLUGIN}")
    result, card = run(pytester, small_corpus, METHODS / "identity")
    assert words in refused(result, card)


def test_a_card_hook_writing_a_score_as_text_is_refused(
    pytester: pytest.Pytester,
    small_corpus: Path,
) -> None:
    """Strict: "55.0" is not converted to a number, nor true to 1.0."""
    pytester.makeconftest(
        """
def pytest_mteval_run_card(card, config):
    card["scores"]["chrf_plus_plus"] = str(card["scores"]["chrf_plus_plus"])
    card["results"][0]["exact_match"] = 1
"""
    )
    result, card = run(pytester, small_corpus, METHODS / "identity")
    line = refused(result, card)
    assert "field 'scores.chrf_plus_plus': Input should be a valid number (got str)" in line


def test_a_built_card_passes_and_a_wrong_typed_row_does_not(
    pytester: pytest.Pytester,
    small_corpus: Path,
) -> None:
    result, path = run(pytester, small_corpus, METHODS / "identity")
    assert result.ret == pytest.ExitCode.OK
    card: dict[str, Any] = runcard.load(path)
    runcard.check_before_sealing(card)
    card["results"][2]["tool_call_count"] = True  # a bool where a count belongs
    with pytest.raises(runcard.RunCardError) as caught:
        runcard.check_before_sealing(card)
    assert str(caught.value) == (
        "run card refused: field 'results.2.tool_call_count': Input should be a valid integer "
        "(got bool)"
    )
    card["results"][2]["tool_call_count"] = 0
    del card["dataset"]["sha256"]
    with pytest.raises(runcard.RunCardError, match="fingerprint component missing"):
        runcard.check_before_sealing(card)


def test_schema_command_prints_the_model_cards_are_checked_against() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "schema", "run-card"],
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(out.stdout)
    assert schema == runcard.RunCard.model_json_schema()
    assert {"gate", "coverage", "flags", "method"} <= set(schema["properties"])
