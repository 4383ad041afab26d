"""The runner protocol bounds what a runner can make the harness hold: one huge stderr line
once took it to 2.1 GiB, unsolicited replies to 925 MiB. A real hostile runner floods the
pipes of a harness in its own process, whose peak memory (``ru_maxrss``) is read after."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from conftest import REPO

FLOOD = REPO / "tests" / "hostile_methods" / "flood" / "flood_runner.py"

#: The harness's side, alone in a fresh process: start the runner, translate one batch, and
#: report what came back and how much memory the process grew by at its peak.
_HARNESS = """
import json, resource, sys
from pytest_mteval.corpus_model import Entry
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.runner_client import Launch, ProcessBackend

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

config = RunConfig(timeout_s=120)
backend = ProcessBackend(Launch(json.loads(sys.argv[1])), {}, config, name="flood")
before = peak_mib()
backend.start()
entries = [Entry(id=i, source=f"source {i}", reference="never sent") for i in range(3)]
results, _ = backend.collect(backend.submit(entries, config))
process = backend._process
print(json.dumps({
    "grew_mib": peak_mib() - before,
    "predicted": {key: r.get("predicted") for key, r in results.items()},
    "errors": [r.get("error") for r in results.values() if r.get("error")],
    "events": backend.events,
    "tail": list(process.tail) if process else [],
}))
backend.close()
"""


def _harness(*flood: str) -> dict:
    argv = [sys.executable, str(FLOOD), *flood]
    proc = subprocess.run(
        [sys.executable, "-c", _HARNESS, json.dumps(argv)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_huge_stderr_line_is_cut_not_held():
    """192 MiB on one stderr line: the harness keeps its first few hundred characters."""
    seen = _harness("stderr", "192")
    assert seen["grew_mib"] < 64, seen["grew_mib"]
    assert seen["errors"] == []
    assert seen["predicted"] == {str(i): f"SOURCE {i}" for i in range(3)}
    assert seen["tail"][-1] == "last words"
    assert all(len(line) <= 300 for line in seen["tail"])


def test_unsolicited_replies_are_dropped_and_the_batch_keeps_its_results():
    """Sixteen 12 MiB replies to tickets never sent, and the real answer twice: the batch keeps
    its results, the rest is dropped as it arrives, and one event line says so."""
    seen = _harness("replies", "16", "12")
    assert seen["grew_mib"] < 64, seen["grew_mib"]
    assert seen["errors"] == []
    assert seen["predicted"] == {str(i): f"SOURCE {i}" for i in range(3)}
    dropped = [e for e in seen["events"] if "not asked for" in e]
    assert len(dropped) == 1, seen["events"]
    # the 16, and the second answer when it came before the batch was collected
    count = re.search(
        r"runner sent (\d+) replies it was not asked for \(first: ticket 10000\)", dropped[0]
    )
    assert count is not None, dropped
    assert int(count.group(1)) in (16, 17)
