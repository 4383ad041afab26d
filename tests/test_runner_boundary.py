"""The runner as a hostile method author attacks it, by default and with the plain runner:
the harness's memory, environment and command line, the key files, and processes left
behind. Real processes: the prober (tests/hostile_methods/prober) is an ordinary method."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from conftest import REPO, envelope, flores_entries
from without_bwrap import without_bwrap

from pytest_mteval.cli.main import main as mteval
from pytest_mteval.run.sandbox import sandbox_problem

pytest_plugins = ["pytester"]

PROBER = REPO / "tests" / "hostile_methods" / "prober"
MARKER = "QZXV-reference-marker-7731"
PROBLEM = sandbox_problem()
needs_namespaces = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


def _corpus(folder: Path, segment: str | None = None) -> Path:
    # entries no other session test uses: this corpus may outlive its in-process session, and
    # the thief of test_runner_process tells entries apart by id and source
    entries = flores_entries(503)[500:]
    for entry in entries:
        entry["reference"] = f"{entry['reference']} {MARKER}"
        if segment:
            entry["segment"] = segment
    path = folder / "three.json"
    path.write_text(json.dumps(envelope(entries)), encoding="utf-8")
    return path


def _pytest(
    folder: Path, *args: str, env: dict[str, str] | None = None, user: list[str] | None = None
):
    """A real pytest process (its environment and command line are the harness's)."""
    card = folder / "card.json"
    proc = subprocess.run(
        [*(user or [sys.executable]), "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--mteval-method={PROBER}", f"--mteval-run-card={card}", "--mteval-no-cache", *args],
        capture_output=True, text=True, cwd=folder, env=env or dict(os.environ), timeout=300,
    )  # fmt: skip
    loaded = json.loads(card.read_text(encoding="utf-8")) if card.exists() else None
    return proc, loaded


def _attempts(card: dict) -> dict:
    return card["results"][0]["metadata"]["attempts"]


def _found(attempts: dict) -> list[str]:
    return [k for k, v in attempts.items() if isinstance(v, str) and v.startswith("found")]


def test_the_plain_runner_cannot_read_the_harness_memory(pytester):
    """``/proc/<harness>/mem`` of a same-user process: refused (the harness is non-dumpable and
    a runner started as root has no CAP_SYS_PTRACE). The harness is dumpable again after."""
    from pytest_mteval.run.hardening import is_dumpable

    before = is_dumpable()
    corpus = _corpus(pytester.path)
    card_path = pytester.path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={PROBER}", "--mteval-sandbox=none",
        f"--mteval-method-arg=marker={MARKER}", f"--mteval-run-card={card_path}",
    )  # fmt: skip
    attempts = _attempts(json.loads(card_path.read_text(encoding="utf-8")))
    harness = os.getpid()
    assert harness in attempts["ancestors"]
    assert attempts[f"mem_{harness}"].startswith("denied"), attempts[f"mem_{harness}"]
    assert not [k for k in _found(attempts) if k.startswith("mem_")], attempts
    assert before  # scoped to the run: this process is as it was
    assert is_dumpable()


def test_a_run_refused_at_start_leaves_the_harness_as_it_was(pytester):
    """A malformed baseline refuses the run after the runner started: the runner is stopped
    and the harness is dumpable again (a later run in this process starts clean)."""
    from pytest_mteval.run.hardening import is_dumpable

    corpus = _corpus(pytester.path)
    baseline = pytester.path / "baseline.json"
    baseline.write_text("{not json", encoding="utf-8")
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={PROBER}", "--mteval-sandbox=none",
        f"--mteval-baseline={baseline}",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "baseline.json" in result.stderr.str()
    assert is_dumpable()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root")
def test_as_an_unprivileged_user_the_harness_memory_is_refused_too(tmp_path_factory):
    """The same attack where harness and runner are ``nobody``: no capability is involved, only
    the harness being non-dumpable stops it."""
    folder = Path(tempfile.mkdtemp(prefix="mteval-nobody-"))  # pytest's own tmp is root's only
    folder.chmod(0o777)
    try:
        _as_nobody(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _as_nobody(folder: Path) -> None:
    corpus = _corpus(folder)
    corpus.chmod(0o644)
    # this interpreter may live where nobody may not go (pyenv under /root): the system's
    # Python of the same version, with this environment's packages on its path
    python = shutil.which("python3", path="/usr/bin") or sys.executable
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {**os.environ, "HOME": str(folder),
           "PYTHONPATH": os.pathsep.join([str(REPO), *site])}  # fmt: skip
    user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python]
    check = subprocess.run([*user, "-c", "import pytest_mteval.plugin.hooks"], cwd=folder, env=env)
    if check.returncode != 0:
        pytest.skip("nobody cannot run a Python with this environment's packages")
    proc, card = _pytest(
        folder, f"--mteval-corpus={corpus}", "--mteval-sandbox=none",
        f"--mteval-method-arg=marker={MARKER}", env=env, user=user,
    )  # fmt: skip
    assert card is not None, proc.stdout + proc.stderr
    attempts = _attempts(card)
    mems = {k: v for k, v in attempts.items() if k.startswith("mem_")}
    assert len(mems) >= 2, attempts  # the supervisor and the harness
    harness = f"mem_{attempts['harness']}"
    assert mems[harness].startswith("denied"), mems
    assert not [k for k in _found(attempts) if not k.startswith("cmdline_")], attempts


def test_the_plain_runner_gets_a_cleared_environment(tmp_path):
    """A variable of the harness's environment reaches the method only when its method.json
    declares it; the harness's own /proc environ is refused."""
    corpus = _corpus(tmp_path)
    env = {**os.environ, "MTEVAL_TEST_SECRET": MARKER, "PROBE_DECLARED": "visible"}
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", "--mteval-sandbox=none",
        f"--mteval-method-arg=marker_hex={MARKER.encode().hex()}", env=env,
    )  # fmt: skip
    assert card is not None, proc.stderr
    attempts = _attempts(card)
    assert attempts["own_environ"] == "clean"
    assert attempts["declared"] == "visible"
    environs = {k: v for k, v in attempts.items() if k.startswith("environ_")}
    assert environs
    assert not [k for k, v in environs.items() if v.startswith("found")], environs


@needs_namespaces
def test_with_a_corpus_key_in_the_environment_the_method_finds_no_key(tmp_path):
    clear = _corpus(tmp_path)
    sealed, key_file = tmp_path / "c.enc", tmp_path / "keys" / "k"
    key_file.parent.mkdir()
    assert mteval(["corpus", "encrypt", str(clear), str(sealed), "--key-file", str(key_file),
                   "--new-key"]) == 0  # fmt: skip
    clear.unlink()
    key = key_file.read_text().strip()
    env = {**os.environ, "MTEVAL_CORPUS_KEY": key}
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={sealed}", "--mteval-corpus-key-env=MTEVAL_CORPUS_KEY",
        f"--mteval-method-arg=marker_hex={key.encode().hex()}", "--mteval-method-arg=detach=",
        "--mteval-method-arg=error_on_find=1", env=env,
    )  # fmt: skip
    assert card is not None, proc.stderr
    assert card["runner"]["sandbox"] == "netns"
    # the card of a secret run has no metadata: the prober fails its entries when it finds
    assert [row["error"] for row in card["results"]] == [None] * 3
    assert key not in proc.stdout + proc.stderr


@needs_namespaces
def test_the_signing_key_is_out_of_the_methods_reach(tmp_path):
    corpus = _corpus(tmp_path)
    keys = tmp_path / "keys"
    keys.mkdir()
    assert mteval(["keygen", str(keys / "ci")]) == 0
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-sign-key={keys / 'ci'}",
        # the author hard-codes the path: not an arg the harness could recognise as one
        f"--mteval-method-arg=key_path_hex={str(keys / 'ci').encode().hex()}",
    )  # fmt: skip
    assert card is not None, proc.stderr
    assert _attempts(card)["key"].startswith("denied"), _attempts(card)["key"]
    card_path = tmp_path / "card.json"
    assert mteval(["verify", str(card_path), "--public-key", str(keys / "ci.pub")]) == 0


@pytest.mark.parametrize(
    ("what", "args"),
    [
        ("signing key", ["--mteval-sign-key=KEY", "--mteval-sandbox=none"]),
        ("signing key", ["--mteval-sign-key=KEY", "--mteval-runner=inprocess"]),
        ("encrypted corpus", ["--mteval-corpus-key-file=KEYFILE", "--mteval-sandbox=none"]),
        ("encrypted corpus", ["--mteval-corpus-key-file=KEYFILE", "--mteval-runner=inprocess"]),
        ("secret segment", ["--mteval-sandbox=none"]),
        ("secret segment", ["--mteval-scores-only", "--mteval-runner=inprocess"]),
        ("gateway", ["--mteval-gateway-requests=5", "--mteval-sandbox=none"]),
    ],
)
def test_a_run_holding_a_secret_refuses_the_plain_runner(pytester, what, args):
    corpus = _corpus(pytester.path, "gold_standard" if what == "secret segment" else None)
    if what == "encrypted corpus":
        sealed = pytester.path / "c.enc"
        mteval(["corpus", "encrypt", str(corpus), str(sealed), "--key-file",
                str(pytester.path / "k"), "--new-key"])  # fmt: skip
        corpus = sealed
    if what == "signing key":
        mteval(["keygen", str(pytester.path / "ci")])
    args = [a.replace("KEYFILE", str(pytester.path / "k")) for a in args]
    args = [a.replace("KEY", str(pytester.path / "ci")) for a in args]
    result = pytester.runpytest(f"--mteval-corpus={corpus}", f"--mteval-method={PROBER}", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    assert "needs the sandbox" in lines[0]
    assert "Traceback" not in result.stderr.str()


def test_without_namespaces_the_default_warns_once_and_the_card_says_so(tmp_path):
    """No bubblewrap stands for a kernel that refuses namespaces: auto falls back to the plain
    runner with one line, and a run holding a secret refuses instead."""
    corpus = _corpus(tmp_path)
    plugin, env = without_bwrap(tmp_path)
    proc, card = _pytest(tmp_path, *plugin, f"--mteval-corpus={corpus}", env=env)
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line]
    assert len(warnings) == 1, proc.stderr
    assert "without the sandbox" in warnings[0]
    assert card is not None
    assert card["runner"]["sandbox"] == "none"
    assert card["runner"]["isolated"] is False
    assert "bubblewrap" in card["runner"]["not_isolated_because"]
    secret = _corpus(tmp_path, "held_out")
    proc, _ = _pytest(
        tmp_path,
        *plugin,
        f"--mteval-corpus={secret}",
        "--mteval-run-card=x.json",
        "--mteval-activate-held-out",
        env=env,
    )
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    assert len(lines) == 1, lines
    assert "needs the sandbox, which this run cannot use" in lines[0]
    assert "Traceback" not in proc.stderr


def _alive(tag: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if tag.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def _still_alive_after(tag: str, seconds: float) -> list[int]:
    """The tagged processes left once ``seconds`` have passed: a PID namespace's processes are
    killed by the kernel when its first process ends, asynchronously, so a loaded machine may
    still list one for a moment after the run has returned."""
    deadline = time.monotonic() + seconds
    while (alive := _alive(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@pytest.mark.parametrize("sandbox", ["none", "auto"])
@pytest.mark.parametrize("block", [False, True])
def test_a_detached_child_dies_with_the_run(pytester, sandbox, block):
    """``setsid`` and a double fork escape a process-group kill: the plain runner's subreaper
    supervisor, or the sandbox's PID namespace, ends it when the run ends or on a timeout."""
    if sandbox == "auto" and PROBLEM is not None:
        pytest.skip(f"no sandbox here: {PROBLEM}")
    tag = f"300.{uuid.uuid4().int % 10**9}"
    corpus = _corpus(pytester.path)
    card_path = pytester.path / "card.json"
    try:
        pytester.runpytest(
            f"--mteval-corpus={corpus}", f"--mteval-method={PROBER}",
            f"--mteval-sandbox={sandbox}", f"--mteval-method-arg=detach={tag}",
            *(["--mteval-method-arg=block=1", "--mteval-timeout=3"] if block else []),
            f"--mteval-run-card={card_path}", "--mteval-batch-size=3",
        )  # fmt: skip
        card = json.loads(card_path.read_text(encoding="utf-8"))
        if not block:
            assert _attempts(card)["detached_pid"] > 0
        else:
            assert "did not return within 3s" in card["results"][0]["error"]
        assert _still_alive_after(tag, 5.0) == []
    finally:
        for pid in _alive(tag):
            os.kill(pid, signal.SIGKILL)
