"""The runner is launched before the harness builds its metrics and its method is built in it
after (run/isolation.py): a run refused in between (a metric that cannot be built) leaves no
runner behind."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import write_probe

from pytest_mteval.methods.loader import find_method
from pytest_mteval.run.isolation import Isolation
from pytest_mteval.run.method_ref import method_ref
from pytest_mteval.run.runner_client import Launch, RunnerProcess

pytest_plugins = ["pytester"]

HARNESS_PLUGIN = Path(__file__).parent / "data" / "reference-harness" / "method_plugin_passthrough"

#: A runner that says hello and waits for its start message, as the Python runner does.
_RUNNER = [sys.executable, "-m", "pytest_mteval.run.runner_main"]


def _launched() -> tuple[Isolation, RunnerProcess]:
    isolation = Isolation("process", "none")
    process = RunnerProcess(Launch(_RUNNER))
    isolation._launched = process
    assert process.wait_for(lambda: process.first is not None, deadline=time.monotonic() + 60)
    return isolation, process


def test_a_run_refused_before_its_runner_was_used_stops_that_runner() -> None:
    isolation, process = _launched()
    assert process.proc.poll() is None  # booted, waiting for its method
    isolation.close()
    assert process.proc.poll() is not None
    assert isolation._launched is None


#: What the harness needs and a runner does not: the manifest's and cards' models (pydantic),
#: scoring (sacrebleu, numpy).
_HEAVY = ("pydantic", "sacrebleu", "numpy")
_BOOT = """
import json, sys
from pytest_mteval.run import runner_main
from pytest_mteval.methods.protocol import RunConfig
method = runner_main.build_method(json.loads(sys.argv[1]), RunConfig())
print(json.dumps([type(method).__name__, sorted(
    {name.split(".")[0] for name in sys.modules} & set(json.loads(sys.argv[2])))]))
"""


def test_a_runner_builds_a_folder_method_from_the_harness_reading_of_its_manifest(
    tmp_path: Path,
) -> None:
    """The runner imports the entry point the harness read and checked, and applies the
    reference harness's shim the manifest asks for, without loading the manifest's models
    itself: it boots in half the time, while the harness builds its metrics."""
    plugin = tmp_path / "plugin"
    shutil.copytree(HARNESS_PLUGIN, plugin)
    ref = method_ref(find_method(str(plugin), tmp_path, {}, load=False))
    assert ref["harness_shim"] is True
    done = subprocess.run(
        [sys.executable, "-I", "-c", _BOOT, json.dumps(ref), json.dumps(_HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    built, heavy = json.loads(done.stdout)
    assert built == "HarnessPluginMethod"  # the shim around the plugin's own class
    assert heavy == []


#: Method code that only the runner process meets (the harness checks the entry point's file,
#: not its code): each refuses the run in one line that names where the fault is.
BROKEN = {
    "no-such-class": ("class Other:\n    pass\n", r"method\.json: entry point 'probe:Probe': "),
    "raises-on-import": ("raise RuntimeError('boom')\n", r"probe\.py: importing the method"),
    "raises-when-built": (
        "class Probe:\n    def __init__(self):\n        raise ValueError('no key')\n\n"
        "    async def translate(self, entries, config):\n        return []\n",
        r"method\.json: entry point 'probe:Probe': building Probe\(\) failed: "
        r"ValueError\('no key'\)",
    ),
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_method_whose_code_breaks_in_its_runner_refuses_the_run_in_one_line(
    pytester: pytest.Pytester, broken: str
) -> None:
    source, says = BROKEN[broken]
    method = write_probe(pytester.path, source)
    corpus = pytester.path / "six.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.str()
    assert re.search(says, errors[0]), errors[0]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_method_that_fails_to_build_in_process_names_its_manifest(
    pytester: pytest.Pytester,
) -> None:
    """The harness builds the method itself with ``--mteval-runner=inprocess``: the same one
    line names the method.json and the entry point whose class failed."""
    source, says = BROKEN["raises-when-built"]
    method = write_probe(pytester.path, source)
    corpus = pytester.path / "six.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        "--mteval-runner=inprocess",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.str()
    assert errors[0].startswith(f"ERROR: {method / 'method.json'}: "), errors[0]
    assert re.search(says, errors[0]), errors[0]
