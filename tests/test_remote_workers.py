"""One run spread over pytest-xdist remote workers (execnet socket servers on 127.0.0.1)
gives the card of a local run."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FLORES_HEAD, METHODS

pytest_plugins = ["pytester"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def socket_workers(pytester) -> Iterator[list[str]]:
    """Two execnet socket servers, as a worker host runs them (``--tx socket=...``)."""
    servers, specs = [], []
    for number in range(2):
        port = _free_port()
        log = pytester.path / f"socketserver-{number}.log"
        with log.open("w") as out:
            servers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-u",
                        "-m",
                        "execnet.script.socketserver",
                        f"127.0.0.1:{port}",
                    ],
                    cwd=pytester.path,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        deadline = time.monotonic() + 30
        while "Entering Accept loop" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        # the project and its methods are installed on the worker host; the checkout is at
        # the same path there, so the run's paths mean the same (xdist's rsync is deprecated)
        specs.append(f"socket=127.0.0.1:{port}//chdir={pytester.path}")
    yield specs
    for server in servers:
        server.kill()
        server.wait()


def _card(path: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_remote_workers_give_the_local_card(pytester, socket_workers):
    data = json.loads(FLORES_HEAD.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:20]
    (pytester.path / "corpus.json").write_text(json.dumps(data, ensure_ascii=False))
    common = [
        "--mteval-corpus=corpus.json",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=5",
        "--mteval-no-cache",
        "-p",
        "no:cacheprovider",
    ]
    local = pytester.runpytest_subprocess(*common, "--mteval-run-card=local.json")
    assert local.ret == 0
    tx = [arg for spec in socket_workers for arg in ("--tx", spec)]
    remote = pytester.runpytest_subprocess(
        *common, "--mteval-run-card=remote.json", *tx, "--dist=load"
    )
    assert remote.ret == 0, remote.stdout.str()
    remote.stdout.fnmatch_lines(["*20 passed*"])
    a, b = _card(pytester.path / "local.json"), _card(pytester.path / "remote.json")
    assert a["fingerprint"] == b["fingerprint"]
    assert a["results"] == [
        {**row, "latency_s": a_row["latency_s"]}  # latency is the only measured difference
        for row, a_row in zip(b["results"], a["results"], strict=True)  # type: ignore[arg-type]
    ]
    for key in ("composite", "chrf_plus_plus", "bleu", "ter", "confidence_intervals"):
        assert a["scores"][key] == b["scores"][key]  # type: ignore[index]
    # both socket servers ran a worker
    logs = [(pytester.path / f"socketserver-{n}.log").read_text() for n in range(2)]
    assert all("got new connection" in log for log in logs)
