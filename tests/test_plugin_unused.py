"""A session that names no corpus pays only for the plugin's options and hook specs: none of
the evaluation's modules (metrics, run state, cards, numpy, sacrebleu) is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# modules a run needs and a session without a corpus must not load
HEAVY = (
    "pytest_mteval.run.run_state",
    "pytest_mteval.metrics.catalog",
    "pytest_mteval.cards.runcard",
    "pytest_mteval.plugin.run_hooks",
    "sacrebleu",
    "numpy",
    "pydantic",
)
#: the LLM gateway's and chat client's HTTP stack, which a run loads only for an A1 method
HTTP = ("httpx", "h11", "pytest_mteval.run.gateway", "pytest_mteval.llm.client")

_CONFTEST = """
import json, sys

def pytest_sessionfinish(session):
    loaded = sorted(name for name in {heavy!r} if name in sys.modules)
    with open("loaded.json", "w") as out:
        json.dump(loaded, out)
"""


def _loaded_after(tmp_path: Path, *args: str, probed: tuple[str, ...] = HEAVY) -> list[str]:
    (tmp_path / "conftest.py").write_text(_CONFTEST.format(heavy=probed))
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    quiet = ("-q", "-p", "no:randomly", "-p", "no:cacheprovider")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *quiet, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    loaded: list[str] = json.loads((tmp_path / "loaded.json").read_text())
    return loaded


def test_a_session_without_a_corpus_imports_none_of_the_evaluation(tmp_path: Path) -> None:
    assert _loaded_after(tmp_path) == []


def test_the_options_still_show_in_help_without_loading_the_evaluation(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "--mteval-corpus" in done.stdout
    assert "--mteval-sandbox" in done.stdout


def test_a_run_loads_the_evaluation(tmp_path: Path) -> None:
    """The guard's own check: with a corpus the same probe sees the run's modules."""
    corpus = Path(__file__).resolve().parent.parent / "corpora" / "eng-sme-tatoeba-dev.json"
    loaded = _loaded_after(
        tmp_path, f"--mteval-corpus={corpus}", "--mteval-method=identity", "--mteval-sandbox=none"
    )
    assert "pytest_mteval.run.run_state" in loaded
    assert "sacrebleu" in loaded


def test_a_run_of_a_method_without_a_model_loads_no_http_client(tmp_path: Path) -> None:
    """The gateway and the chat preflight load only for an A1 method (run/isolation.py)."""
    corpus = Path(__file__).resolve().parent.parent / "corpora" / "eng-sme-tatoeba-dev.json"
    args = (f"--mteval-corpus={corpus}", "--mteval-method=identity")
    for sandbox in ("none", "auto"):
        assert _loaded_after(tmp_path, *args, f"--mteval-sandbox={sandbox}", probed=HTTP) == []


def test_a_run_that_neither_signs_seals_nor_decrypts_loads_no_cryptography(tmp_path: Path) -> None:
    """cryptography's bindings load where a card is signed, a review sample sealed to a
    steward or a corpus decrypted (some 20 ms of a run's start otherwise)."""
    from pytest_mteval.cards.signing import generate_key_pair

    corpus = Path(__file__).resolve().parent.parent / "corpora" / "eng-sme-tatoeba-dev.json"
    args = (f"--mteval-corpus={corpus}", "--mteval-method=identity")  # signing needs the sandbox
    probed = ("cryptography",)
    assert _loaded_after(tmp_path, *args, probed=probed) == []
    key = tmp_path / "keys" / "card.pem"
    key.parent.mkdir()
    generate_key_pair(key)
    signed = _loaded_after(tmp_path, *args, f"--mteval-sign-key={key}", probed=probed)
    assert signed == ["cryptography"]  # the probe's own check: signing a card loads it
