"""Issue 41, group 3: every dependency class isolated from the references. Each test is an
attack that once succeeded, run as a method author would: real pytest processes, a real
bubblewrap, real namespaces, a real loopback listener."""

from __future__ import annotations

import json
import os
import shutil
import site
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, envelope, flores_entries

from pytest_mteval.run import sandbox
from pytest_mteval.run.runner_env import looks_like_credential
from pytest_mteval.run.sandbox import BWRAP, sandbox_problem, untrusted_binary

pytest_plugins = ["pytester"]

PROBLEM = sandbox_problem()
needs_namespaces = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
SNOOP = REPO / "tests" / "hostile_methods" / "snoop"
EXTERNAL_API = {
    "id": "dictionary-api", "kind": "service", "license": "none", "access": "external-api",
    "source": "https://dictionary.example/lookup", "substitutable": False,
    "redistributable": False, "transferable": False,
}  # fmt: skip


def _snoop(folder: Path, name: str = "snoop", **manifest: object) -> Path:
    """A copy of the snoop method with fields of its method.json replaced."""
    copy = folder / name
    shutil.copytree(SNOOP, copy)
    path = copy / "method.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **manifest}), encoding="utf-8")
    return copy


def _corpus(folder: Path, count: int = 4) -> Path:
    path = folder / "corpus.json"
    path.write_text(json.dumps(envelope(flores_entries(count))), encoding="utf-8")
    return path


def _pytest(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict | None]:
    """A real pytest process, whose command line names the corpus as a user's does."""
    card = folder / "card.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-p", "no:asyncio",  # a scratch folder sets no loop scope: pytest-asyncio would warn
         f"--mteval-run-card={card}", "--mteval-no-cache", *args],
        capture_output=True, text=True, cwd=folder, env=env or dict(os.environ), timeout=300,
    )  # fmt: skip
    loaded = json.loads(card.read_text(encoding="utf-8")) if card.exists() else None
    return proc, loaded


def _attempts(card: dict) -> dict:
    return card["results"][0]["metadata"]["attempts"]


def _nothing_stolen(card: dict) -> bool:
    return all(str(row["predicted"]).startswith("nothing: ") for row in card["results"])


@needs_namespaces
def test_an_a2_method_runs_sandboxed_with_its_network_and_without_the_corpus(tmp_path):
    """Under the default (auto) an A2 method once got the plain runner and read every
    reference from the harness's command line. Now: the sandbox, with the host's network
    (it connects to a loopback listener), and no command line but its own."""
    corpus = _corpus(tmp_path)
    method = _snoop(tmp_path, dependency_class="A2", dependencies=[EXTERNAL_API])
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        proc, card = _pytest(
            tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
            "--mteval-method-arg=scan=1", f"--mteval-method-arg=files={corpus}",
            f"--mteval-method-arg=port={port}",
        )  # fmt: skip
    assert card is not None, proc.stdout + proc.stderr
    attempts = _attempts(card)
    assert attempts["scan"] == "corpus paths found: []", attempts
    assert attempts[f"file {corpus}"].startswith("denied"), attempts
    assert attempts["connect"] == "connected", attempts  # the network it declares
    assert _nothing_stolen(card)
    assert card["scores"]["exact_match_rate"] == 0.0
    runner = card["runner"]
    assert (runner["sandbox"], runner["isolated"]) == ("hostnet", True)
    assert runner["sandbox_binary"] == str(BWRAP)
    assert "WARNING" not in proc.stderr


@needs_namespaces
def test_netns_refuses_an_a2_method_with_one_line(tmp_path):
    """Asked for the network sandbox, an A2 method cannot have it: one line, the way out."""
    method = _snoop(tmp_path, dependency_class="A2", dependencies=[EXTERNAL_API])
    corpus = _corpus(tmp_path)
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        "--mteval-sandbox=netns",
    )  # fmt: skip
    assert card is None
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "is class A2" in lines[0]
    assert "default (auto) runs it sandboxed" in lines[0]


@needs_namespaces
def test_a_bwrap_planted_on_path_is_never_run(tmp_path):
    """A plain run once planted a ``bwrap`` in a writable PATH folder (an activated venv's
    bin/); later "sandboxed" runs went through it, unsandboxed. The harness runs only the
    bubblewrap at its fixed system path, and names it on the card."""
    planted = tmp_path / "venv-bin"
    planted.mkdir()
    marker = tmp_path / "planted-bwrap-ran"
    fake = planted / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        f"echo ran >> {marker}\n"
        'while [ "$1" != "--" ]; do shift; done; shift\nexec "$@"\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    corpus = _corpus(tmp_path)
    method = _snoop(tmp_path)
    env = {**os.environ, "PATH": f"{planted}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        "--mteval-sandbox=netns", "--mteval-method-arg=scan=1",
        f"--mteval-method-arg=files={corpus}", env=env,
    )  # fmt: skip
    assert card is not None, proc.stdout + proc.stderr
    assert not marker.exists()
    attempts = _attempts(card)
    assert attempts[f"file {corpus}"].startswith("denied"), attempts
    assert attempts["scan"] == "corpus paths found: []"
    assert _nothing_stolen(card)
    assert card["runner"]["sandbox_binary"] == "/usr/bin/bwrap"


def test_an_untrusted_bwrap_is_refused(tmp_path):
    """The fixed path is checked too: a binary (or a folder above it) that another user owns
    or may write could be swapped for one that builds no sandbox."""
    folder = tmp_path / "bin"
    folder.mkdir()
    binary = folder / "bwrap"
    shutil.copy(BWRAP if BWRAP.exists() else "/bin/true", binary)
    binary.chmod(0o755)
    if os.geteuid() == 0:
        assert untrusted_binary(binary) is None
        os.chown(binary, 65534, 65534)
        assert "is not owned by root" in str(untrusted_binary(binary))
        os.chown(binary, 0, 0)
    binary.chmod(0o757)
    assert f"{binary} is writable by others" in str(untrusted_binary(binary))
    binary.chmod(0o755)
    folder.chmod(0o777)
    assert f"{folder} is writable by others" in str(untrusted_binary(binary))
    assert "is not installed" in str(untrusted_binary(tmp_path / "missing" / "bwrap"))


def test_the_sandbox_never_looks_on_path(monkeypatch, tmp_path):
    """With a bwrap on PATH but none at the fixed path, the sandbox is unavailable."""
    planted = tmp_path / "bwrap"
    planted.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sandbox, "BWRAP", tmp_path / "usr-bin" / "bwrap")
    sandbox.sandbox_problem.cache_clear()
    try:
        assert "is not installed" in str(sandbox.sandbox_problem())
    finally:
        monkeypatch.undo()
        sandbox.sandbox_problem.cache_clear()


@needs_namespaces
def test_folders_named_in_pth_files_are_not_shown(pytester, monkeypatch):
    """An editable install's ``.pth`` line names a whole project folder: another project's
    private key and gold corpus were readable in the sandbox. Now only the installations and
    this package are shown."""
    other = pytester.path / "other-project"
    (other / "keys").mkdir(parents=True)
    key = other / "keys" / "signing.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nsecret\n", encoding="utf-8")
    gold = other / "gold.json"
    gold.write_text(json.dumps(envelope(flores_entries(4))), encoding="utf-8")
    site_folder = pytester.path / "site-packages"
    site_folder.mkdir()
    (site_folder / "__editable__.other_project-1.0.pth").write_text(f"{other}\n", "utf-8")
    real = site.getsitepackages
    monkeypatch.setattr(site, "getsitepackages", lambda: [*real(), str(site_folder)])
    corpus = pytester.path / "run-corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(4)[::-1])), encoding="utf-8")
    method = _snoop(pytester.path)
    card_path = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}", "--mteval-sandbox=netns",
        f"--mteval-method-arg=files={key}{os.pathsep}{gold}", f"--mteval-run-card={card_path}",
        "--mteval-no-cache",
    )  # fmt: skip
    assert card_path.exists(), result.stderr.str()
    card = json.loads(card_path.read_text(encoding="utf-8"))
    attempts = _attempts(card)
    assert attempts[f"file {key}"].startswith("denied"), attempts
    assert attempts[f"file {gold}"].startswith("denied"), attempts
    assert _nothing_stolen(card)
    assert not [p for p in sandbox.python_paths() if p == other or p.is_relative_to(other)]


@pytest.mark.parametrize("sandbox_mode", ["none", "auto"])
def test_an_offline_method_declaring_credentials_is_refused(tmp_path, sandbox_mode):
    """A class S method's ``env`` passed OPENROUTER_API_KEY and GITHUB_TOKEN; both came back
    as predictions. A method that reaches no service has no use for one: one line, no run."""
    corpus = _corpus(tmp_path)
    method = _snoop(tmp_path, env=["LANGUAGE_VARIANT", "OPENROUTER_API_KEY", "GITHUB_TOKEN"])
    env = {**os.environ, "OPENROUTER_API_KEY": "sk-or-SECRET-1", "GITHUB_TOKEN": "ghp_SECRET_2"}
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        f"--mteval-sandbox={sandbox_mode}",
        "--mteval-method-arg=env_names=OPENROUTER_API_KEY,GITHUB_TOKEN", env=env,
    )  # fmt: skip
    assert card is None
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "method.json of" in lines[0]
    assert "field env names OPENROUTER_API_KEY" in lines[0]
    assert "class S" in lines[0]
    assert "SECRET" not in proc.stdout + proc.stderr


@needs_namespaces
def test_an_a2_method_keeps_the_credential_it_declares(tmp_path):
    """An A2 method calls its service itself: its declared key reaches it, in the sandbox."""
    corpus = _corpus(tmp_path, 2)
    method = _snoop(
        tmp_path, dependency_class="A2", dependencies=[EXTERNAL_API], env=["DICTIONARY_API_KEY"]
    )
    env = {**os.environ, "DICTIONARY_API_KEY": "dict-key-1", "GITHUB_TOKEN": "ghp_SECRET_2"}
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        "--mteval-method-arg=env_names=DICTIONARY_API_KEY,GITHUB_TOKEN", env=env,
    )  # fmt: skip
    assert card is not None, proc.stderr
    assert _attempts(card)["env"] == "got: dict-key-1"  # and not the undeclared token


@pytest.mark.parametrize(
    ("name", "credential"),
    [
        ("OPENROUTER_API_KEY", True), ("GITHUB_TOKEN", True), ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWORD", True), ("HF_TOKEN", True), ("OPENAIKEY", True), ("SSH_AUTH_SOCK", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True), ("session_cookie", True),
        ("LANGUAGE_VARIANT", False), ("MODEL_DIR", False), ("KEYBOARD_LAYOUT", False),
        ("TOKENIZER_PATH", False), ("OMP_NUM_THREADS", False),
    ],
)  # fmt: skip
def test_what_looks_like_a_credential(name, credential):
    assert looks_like_credential(name) is credential


def test_without_the_sandbox_the_method_cannot_signal_the_harness(tmp_path):
    """Under ``--mteval-sandbox=none`` a method once SIGKILLed pytest (no card, no message).
    The plain runner lives in its own PID namespace: the harness's PID names nothing there."""
    corpus = _corpus(tmp_path)
    method = _snoop(tmp_path)
    # the text only the harness's command line holds: its corpus path
    proc, card = _pytest(
        tmp_path, f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        "--mteval-sandbox=none", f"--mteval-method-arg=kill=--mteval-corpus={corpus}",
    )  # fmt: skip
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    assert card is not None, proc.stderr
    outcome = _attempts(card)["kill"]
    assert outcome != "no process found"  # it saw the harness in /proc ...
    assert "killed" not in outcome, outcome  # ... and could not signal it
