"""Set a run up to translate out of process: the runner's launch (plain or sandboxed), the
LLM gateway for a sandboxed A1 method, and what the run card says about both."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mteval.errors import SettingsError
from pytest_mteval.llm.chat_settings import DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL
from pytest_mteval.methods.manifest import MethodManifest
from pytest_mteval.methods.preflight import run_check
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.hardening import is_dumpable, set_dumpable
from pytest_mteval.run.method_ref import method_ref
from pytest_mteval.run.remote_method import RemoteMethod
from pytest_mteval.run.run_state import RunState
from pytest_mteval.run.runner_client import Launch, ProcessBackend, RunnerProcess
from pytest_mteval.run.runner_env import runner_env
from pytest_mteval.run.runner_protocol import PROTOCOL_VERSION
from pytest_mteval.run.runtimes import runner_command
from pytest_mteval.run.sandbox import (
    GATEWAY_DIR_INSIDE,
    HOST_NETWORK,
    SandboxError,
    sandbox_launch,
)
from pytest_mteval.run.sandbox_policy import (
    SandboxChoice,
    choose_sandbox,
    import_root,
    method_folder,
    uses_gateway,
)

if TYPE_CHECKING:  # the gateway and the chat preflight (httpx, h11) load only for an A1 method
    from pytest_mteval.run.gateway import Gateway

#: The key under which the controller hands its gateway socket to xdist workers.
GATEWAY_SOCKET_KEY = "mteval_gateway_socket"
#: Gateway requests allowed per entry by default (a method that makes more, like fst-gated with
#: more than 3 retries, needs --mteval-gateway-requests).
REQUESTS_PER_ENTRY = 4
#: Refused gateway requests answered and logged per entry by default (never fewer than the
#: gateway's REFUSAL_BUDGET).
REFUSALS_PER_ENTRY = 2


@dataclass
class Isolation:
    """The run's runner mode, sandbox and gateway; closed at the end of the session."""

    runner: str
    sandbox: str
    backend: ProcessBackend | None = None
    gateway: Gateway | None = None
    gateway_socket: str | None = None
    _owned_dir: str | None = None
    notes: list[str] = field(default_factory=list)
    choice: SandboxChoice | None = None
    _home: str | None = None
    _was_dumpable: bool | None = None
    #: The runtime of the method's runner (``python``, ``node``, ``command``).
    runtime: str = "python"
    #: The runner process started by ``start_isolation``, until ``wait_ready`` builds its method.
    _launched: RunnerProcess | None = None

    def card(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.runner, "sandbox": self.sandbox}
        if self.runner != "inprocess":
            out["runtime"] = self.runtime
            out["protocol"] = PROTOCOL_VERSION
        if self.choice is not None:
            out["requested"] = self.choice.requested
            out["isolated"] = self.choice.isolated
            if self.choice.binary is not None:
                out["sandbox_binary"] = self.choice.binary
            if self.choice.not_isolated:
                out["not_isolated_because"] = self.choice.not_isolated
        if self.backend is not None:
            out["restarts"] = self.backend.restarts
            out["events"] = list(self.backend.events)
        if self.gateway is not None:
            out["gateway"] = self.gateway.summary()
        return out

    def wait_ready(self, state: RunState) -> None:
        """Build the method in the runner that ``start_isolation`` launched (MethodLoadError
        if it cannot start; the caller closes) and make it the run's method, as the runner
        describes it: the harness did the rest of its start-up while the runner booted."""
        if self.backend is None or self._launched is None:
            return  # in process: nothing was launched
        launched, self._launched = self._launched, None
        self.backend.start(launched)  # which ends the runner if the method cannot start
        state._method = RemoteMethod(self.backend)

    def close(self) -> None:
        if self._launched is not None:  # the run was refused before its runner was used
            self._launched.stop()
            self._launched = None
        if self.backend is not None:
            self.backend.close()  # every runner gone before the harness is dumpable again
        if self.gateway is not None:
            self.gateway.close()
        for folder in (self._owned_dir, self._home):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        if self._was_dumpable:
            set_dumpable(True)
            self._was_dumpable = None


def start_isolation(
    state: RunState, rootpath: Path, given_socket: str | None, preflight: bool = False
) -> Isolation:
    """Launch the runner (and start the gateway) for ``state``, SettingsError if not; the
    method is built in it by ``Isolation.wait_ready`` (MethodLoadError if it cannot be), so
    that the runner boots while the harness builds its metrics. ``given_socket``: the
    controller's gateway socket, on an xdist worker."""
    settings = state.settings
    runner = settings.runner
    choice = choose_sandbox(state)
    sandbox = choice.sandbox
    isolation = Isolation(runner, sandbox, choice=choice)
    if runner == "inprocess":
        return isolation
    manifest = state.source.manifest
    ref = method_ref(state.source)
    config = state.run_config
    # the runner must not read the harness's memory (/proc/<pid>/mem, environ, ptrace)
    if is_dumpable() and set_dumpable(False):
        isolation._was_dumpable = True
    isolation._home = tempfile.mkdtemp(prefix="mteval-home-")
    env = runner_env(state, isolation._home, sandboxed=False, gateway=False)
    try:
        command = runner_command(state.source)
    except SettingsError:
        isolation.close()
        raise
    argv = [sys.executable, "-m", "pytest_mteval.run.runner_main", "--supervised"]
    if command is not None:  # another runtime's runner, in the method's folder
        argv = command.launcher([sys.executable], supervised=True)
        ref = {**ref, "runtime": command.runtime, "entry_point": state.source.entry_point}
    cwd = str(state.source.directory) if command is not None else None
    launch = Launch(argv, env=env, cwd=cwd, supervised=True)
    isolation.runtime = state.source.runtime
    if choice.isolated:
        folder = method_folder(state)
        assert folder is not None  # choose_sandbox saw to it
        gateway_dir = None
        if manifest is not None and uses_gateway(manifest) and sandbox != HOST_NETWORK:
            if preflight:
                _check_upstream(isolation, state)
            config, gateway_dir = _gateway_for(isolation, state, manifest, rootpath, given_socket)
        config = _absolute_paths(manifest, config)
        readable = [Path(p) for p in (config.fst_path, config.method_args.get("prices")) if p]
        readable += _path_args(manifest, config)
        protected = _protected(state, rootpath)
        root = import_root(state)
        readable += [root] if root is not None else []
        inside = command.launcher([sys.executable, "-I"], supervised=False) if command else []
        readable += command.shown if command is not None else []
        try:
            env = runner_env(state, "/tmp", sandboxed=True, gateway=gateway_dir is not None)
            ref = {**ref, "sys_path": [str(root)]} if root is not None else ref
            network = sandbox == HOST_NETWORK
            launch = sandbox_launch(
                folder, readable, protected, gateway_dir, env, inside, network=network
            )
        except (SandboxError, SettingsError) as exc:
            isolation.close()
            raise SettingsError(str(exc)) from None
    # behind the gateway the method's own endpoint and key check would fail: the harness
    # checked the upstream itself (_check_upstream)
    preflight = preflight and isolation.gateway_socket is None
    backend = ProcessBackend(launch, ref, config, name=state.source.name, preflight=preflight)
    try:
        isolation._launched = RunnerProcess(launch)
    except Exception:
        isolation.close()
        raise
    isolation.backend = backend
    state.translator.backend = backend
    # the gateway's budget is the harness's (--mteval-gateway-requests or REQUESTS_PER_ENTRY),
    # never the method's own max_calls_per_entry: a method could claim any number
    return isolation


def _check_upstream(isolation: Isolation, state: RunState) -> None:
    """The A1 preflight the method cannot run behind the gateway, run here on what the
    gateway will use (model, key, prices, endpoint): one line and a usage error, not one
    failed entry per item."""
    from pytest_mteval.llm.chat_preflight import check_chat_setup

    try:
        run_check(check_chat_setup, state.run_config, state.source.name)
    except Exception:
        isolation.close()
        raise


def _absolute_paths(manifest: MethodManifest | None, config: RunConfig) -> RunConfig:
    """``config`` with its file args made absolute: the sandboxed method runs in its own
    folder, and a relative path means what it means where pytest was started."""
    declared = manifest.args or {} if manifest is not None else {}
    names = {n for n, arg in declared.items() if arg.type == "path"} | {"prices"}
    args = {
        name: str(Path(value).absolute()) if name in names and value else value
        for name, value in config.method_args.items()
    }
    fst = str(Path(config.fst_path).absolute()) if config.fst_path else config.fst_path
    return dataclasses.replace(config, method_args=args, fst_path=fst)


def _path_args(manifest: MethodManifest | None, config: RunConfig) -> list[Path]:
    """The files given as method args the manifest declares of type path (a replay method's
    predictions): shown read-only, unless protected (then the run is refused)."""
    declared = manifest.args or {} if manifest is not None else {}
    given = config.method_args
    return [Path(given[n]) for n, arg in declared.items() if arg.type == "path" and given.get(n)]


def _protected(state: RunState, rootpath: Path) -> list[Path]:
    """What the sandbox must not show: the corpus, the cards, the cache, the home folder, and
    the keys the harness opens (the signing key, the corpus key) with their folders."""
    settings = state.settings
    found = [state.corpus.path, rootpath / ".mteval", Path.home()]
    found += [p for p in (settings.run_card, settings.baseline) if p is not None]
    for key in (settings.sign_key, settings.corpus_key_file):
        if key is not None:
            found += [key, key.resolve().parent]
    return [p for p in found if p != Path("/")]


def _gateway_for(
    isolation: Isolation,
    state: RunState,
    manifest: MethodManifest,
    rootpath: Path,
    given: str | None,
) -> tuple[RunConfig, Path]:
    """The gateway's socket folder (started here on the controller, inherited by workers) and
    the run configuration the method sees: the gateway as its endpoint, no key variable."""
    from pytest_mteval.run.gateway import REFUSAL_BUDGET, Gateway, GatewayConfig, allowed_models
    from pytest_mteval.run.gateway_audit_log import AuditLog

    config = state.run_config
    if given:
        socket = Path(given)
    else:
        folder = tempfile.mkdtemp(prefix="mteval-gw-")
        isolation._owned_dir = folder
        socket = Path(folder) / "gateway.sock"
        args = config.method_args
        key_env = args.get("api_key_env", DEFAULT_API_KEY_ENV)
        settings = state.settings
        entries = len(state.corpus.entries)
        budget = getattr(settings, "gateway_requests", None) or REQUESTS_PER_ENTRY * entries
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        log = AuditLog(rootpath / ".mteval" / "audit" / f"{stamp}-{uuid.uuid4().hex[:8]}.jsonl")
        gateway_config = GatewayConfig(
            upstream=args.get("base_url", DEFAULT_BASE_URL),
            api_key=os.environ.get(key_env, "") if key_env else "",
            models=allowed_models(manifest, config.model),
            concurrency=settings.concurrency,
            budget=budget,
            timeout_s=settings.request_timeout_s or settings.timeout_s,
            refusal_budget=max(REFUSAL_BUDGET, REFUSALS_PER_ENTRY * entries),
            texts_withheld=state.secrecy.withheld,  # §8.2: a secret run logs no text
        )
        isolation.gateway = Gateway(gateway_config, socket, log).start()
    isolation.gateway_socket = str(socket)
    inside = f"{GATEWAY_DIR_INSIDE}/{socket.name}"
    method_args = {
        **config.method_args,
        "base_url": "http://mteval-gateway/v1",
        "api_key_env": "",
        "gateway_socket": inside,
    }
    return dataclasses.replace(config, method_args=method_args), socket.parent
