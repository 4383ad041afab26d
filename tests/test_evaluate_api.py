"""``pytest_mteval.evaluate``: the Python API runs the same session as the ``pytest`` command and
returns the card it wrote as a ``RunCard``; an unknown option is refused in one line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from methods_for_tests import calls, write_probe

from pytest_mteval import evaluate
from pytest_mteval.api import EvaluateError, option_arguments
from pytest_mteval.cards.card_model import RunCard

CORPUS = "shipped:eng-fra-flores-devtest"
ENTRIES = "3-9"
COMMAND_OPTIONS = [
    f"--mteval-corpus={CORPUS}",
    "--mteval-method=identity",
    f"--mteval-entry={ENTRIES}",
    "--mteval-run-card=card.json",
]
#: Scores that measure the machine's speed, not the translations: they differ run to run.
TIMED = {
    "avg_latency_seconds",
    "median_latency_seconds",
    "p95_latency_seconds",
    "tokens_per_second",
    "entries_per_minute",
}


def comparable(scores: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in scores.items() if key not in TIMED}


@pytest.fixture(scope="module")
def pytest_card(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The card of the equivalent command, run as a user runs it in a scratch folder."""
    folder = tmp_path_factory.mktemp("command")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *COMMAND_OPTIONS],
        cwd=folder,
        capture_output=True,
        check=True,
    )
    card: dict[str, Any] = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    return card


@pytest.fixture(scope="module")
def api_card() -> RunCard:
    return evaluate("identity", CORPUS, entry=ENTRIES)


def test_evaluate_returns_the_card_the_pytest_command_writes(
    api_card: RunCard, pytest_card: dict[str, Any]
) -> None:
    assert isinstance(api_card, RunCard)
    assert comparable(api_card.scores.model_dump()) == comparable(pytest_card["scores"])
    assert api_card.fingerprint == pytest_card["fingerprint"]
    assert [r["entry_id"] for r in api_card.results] == [str(n) for n in range(3, 10)]
    assert [r["chrf_score"] for r in api_card.results] == [
        r["chrf_score"] for r in pytest_card["results"]
    ]


def test_the_identity_card_scores_the_sources_as_outputs(api_card: RunCard) -> None:
    assert [r["predicted"] for r in api_card.results] == [r["source"] for r in api_card.results]
    assert api_card.coverage is not None
    assert api_card.coverage.complete is False  # an entry range is a partial run


def test_an_unknown_option_is_one_line_and_runs_nothing(tmp_path: Path) -> None:
    with pytest.raises(EvaluateError) as raised:
        evaluate("identity", CORPUS, entyr=ENTRIES, run_card=tmp_path / "card.json")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("evaluate(): unknown option 'entyr'; did you mean 'entry'?")
    assert not (tmp_path / "card.json").exists()


def test_options_map_to_the_mteval_options() -> None:
    arguments = option_arguments(
        {
            "batch_size": 5,
            "method_arg": {"predictions": "p.jsonl", "n": 2},
            "segment": ["development", "diagnostic"],
            "no_cache": True,
            "dry_run": False,
        }
    )
    assert arguments == [
        "--mteval-batch-size=5",
        "--mteval-method-arg=predictions=p.jsonl",
        "--mteval-method-arg=n=2",
        "--mteval-segment=development",
        "--mteval-segment=diagnostic",
        "--mteval-no-cache",
    ]
    with pytest.raises(EvaluateError, match="'no_cache' is a flag: True or False"):
        option_arguments({"no_cache": "yes"})
    with pytest.raises(EvaluateError, match="'corpus' is given as a positional argument"):
        option_arguments({"corpus": "x.json"})


def test_a_session_that_writes_no_card_is_an_error_quoting_it(tmp_path: Path) -> None:
    stale = tmp_path / "card.json"
    stale.write_text("{}", encoding="utf-8")  # an earlier run's card is not this run's
    with pytest.raises(EvaluateError) as raised:
        evaluate("identity", tmp_path / "missing.json", run_card=stale)
    message = str(raised.value)
    assert "\n" not in message
    assert "the session wrote no run card (exit 4)" in message
    assert f"{tmp_path / 'missing.json'}: cannot read corpus file" in message


def test_importing_the_package_does_not_load_the_api() -> None:
    code = "import sys, pytest_mteval; print('pytest_mteval.api' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_documented_notebook_example_runs_as_written(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "python-api.md").read_text("utf-8")
    example = page.split("```python\n", 1)[1].split("```", 1)[0]
    out = subprocess.run(
        [sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "flores200-devtest-eng-fra 20"
    assert out[1].startswith("chrF++ ")
    assert out[2].startswith("nrefs:1|case:mixed|eff:yes|nc:6|nw:2")
    assert out[3] == "False"
    assert len(out) == 7


INTERRUPTED_SCRIPT = """
import sys
from pytest_mteval import evaluate
card = evaluate(sys.argv[1], "shipped:eng-fra-flores-devtest", entry="1-6", batch_size=3,
                method_arg={"mode": "sleep"}, run_card=sys.argv[2],
                sandbox="none")  # the test waits on the method's call log, outside its folder
print("interrupted", card.interrupted, "rows", len(card.results))
"""


@pytest.mark.parametrize(
    "signal_name",
    [
        "SIGINT",
        "SIGTERM",
    ],
)
def test_an_interrupt_is_passed_on_and_the_card_still_returned(
    tmp_path: Path, signal_name: str
) -> None:
    """A notebook's interrupt reaches only the kernel's process: evaluate passes it on, so the
    session stops as pytest does and writes its card; a CI job's SIGTERM likewise."""
    probe = write_probe(tmp_path)
    script = tmp_path / "notebook.py"
    script.write_text(INTERRUPTED_SCRIPT, encoding="utf-8")
    card = tmp_path / "card.json"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(probe), str(card)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not calls(probe) and time.monotonic() < deadline:  # the first batch is sleeping
        time.sleep(0.05)
    assert calls(probe), "the method never started"
    proc.send_signal(getattr(signal, signal_name))
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # no-op once it ended; a hung one must not outlive the test
    assert proc.returncode == 0, err.splitlines()[-1:]
    assert (out, err) == ("interrupted True rows 6\n", "")
