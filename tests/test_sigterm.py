"""A CI job cancelled or timed out gets SIGTERM: the run ends as after Ctrl-C, card kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import write_probe

#: The first two entries answer quickly; the rest wait long enough to be cut off by the test.
SLOW_AFTER_TWO = """
import asyncio, json
from pathlib import Path

LOG = Path(__file__).parent.with_name("calls.jsonl")

class Probe:
    async def translate(self, entries, config):
        with LOG.open("a", encoding="utf-8") as log:
            log.write(json.dumps([e["id"] for e in entries]) + "\\n")
        quick = all(str(e["id"]) in ("1", "2") for e in entries)
        await asyncio.sleep(0.2 if quick else 120)
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


@pytest.mark.parametrize("workers", ["0", "2"])
def test_sigterm_keeps_the_card_and_exits_as_interrupted(tmp_path: Path, workers: str) -> None:
    corpus = tmp_path / "eight.json"
    corpus.write_text(json.dumps(envelope(flores_entries(8))), encoding="utf-8")
    probe = write_probe(tmp_path, SLOW_AFTER_TWO)
    card_path = tmp_path / "card.json"
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:asyncio -p no:hypothesispytest -p no:randomly"}
    # its own process group, as a CI job's shell is: the signal reaches controller and workers
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mteval-corpus={corpus}",
            f"--mteval-method={probe}", "--mteval-batch-size=1", "--mteval-concurrency=1",
            "--mteval-timeout=600", "--mteval-no-cache", f"--mteval-run-card={card_path}",
            "--mteval-sandbox=none",  # the test waits on the method's call log
            "-n", workers,
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        cwd=tmp_path, env=env, start_new_session=True,
    )  # fmt: skip
    log = tmp_path / "calls.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _lines(log) < 3 and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)  # the quick entries reported, a slow one blocked in its runner
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    print(f"run ended {time.monotonic() - sent:.2f}s after SIGTERM")
    text = out.decode() + err.decode()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    assert "INTERNALERROR" not in text, text[-3000:]
    assert f"run card         {card_path}" in text  # the summary was printed
    card = json.loads(card_path.read_text(encoding="utf-8"))
    assert card["interrupted"] is True
    assert card["complete"] is False
    errors = {row["entry_id"]: row["error"] for row in card["results"]}
    assert sorted(errors) == [str(i) for i in range(1, 9)]  # every entry has its row
    assert errors["1"] is None, errors  # scored before the signal, kept
    not_run = [key for key, error in errors.items() if error == "not run: interrupted"]
    assert set(not_run) >= {"3", "4", "5", "6", "7", "8"}, errors  # the slow ones never ran
    assert all(errors[key] is None for key in errors.keys() - set(not_run)), errors
