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
from typing import Any

from pytest_mteval.errors import SettingsError
from pytest_mteval.llm.client import DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL
from pytest_mteval.methods.manifest import MethodManifest
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.audit_log import AuditLog
from pytest_mteval.run.gateway import REFUSAL_BUDGET, Gateway, GatewayConfig, allowed_models
from pytest_mteval.run.method_ref import method_ref
from pytest_mteval.run.remote_method import RemoteMethod
from pytest_mteval.run.runner_client import Launch, ProcessBackend
from pytest_mteval.run.sandbox import GATEWAY_DIR_INSIDE, SandboxError, sandbox_launch
from pytest_mteval.run.state import RunState

#: workerinput key that hands the controller's gateway socket to xdist workers.
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

    def card(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.runner, "sandbox": self.sandbox}
        if self.backend is not None:
            out["restarts"] = self.backend.restarts
            out["events"] = list(self.backend.events)
        if self.gateway is not None:
            out["gateway"] = self.gateway.summary()
        return out

    def close(self) -> None:
        if self.gateway is not None:
            self.gateway.close()
        if self._owned_dir is not None:
            shutil.rmtree(self._owned_dir, ignore_errors=True)


def start_isolation(
    state: RunState, rootpath: Path, workerinput: Any, preflight: bool = False
) -> Isolation:
    """Start the runner (and gateway) for ``state``; SettingsError or MethodLoadError if not."""
    settings = state.settings
    runner = getattr(settings, "runner", "process")
    sandbox = getattr(settings, "sandbox", "none")
    isolation = Isolation(runner, sandbox)
    if runner == "inprocess":
        if sandbox != "none":
            raise SettingsError("--mteval-sandbox=netns needs --mteval-runner=process")
        return isolation
    manifest = state.source.manifest
    ref = method_ref(state.source)
    config = state.run_config
    launch = Launch([sys.executable, "-m", "pytest_mteval.run.runner_main"], env=_plain_env())
    if sandbox == "netns":
        if manifest is None or state.source.directory is None:
            raise SettingsError(
                f"--mteval-sandbox=netns runs method folders only; {state.source.name!r} is a "
                "registered method without a method.json declaring its dependencies"
            )
        if manifest.dependency_class in ("A2", "X"):
            raise SettingsError(
                f"--mteval-sandbox=netns: method {manifest.method_id!r} is class "
                f"{manifest.dependency_class}, which cannot run in the sandbox (spec §8.6)"
            )
        gateway_dir = None
        if manifest.dependency_class == "A1":
            config, gateway_dir = _gateway_for(isolation, state, manifest, rootpath, workerinput)
        readable = [Path(p) for p in (config.fst_path, config.method_args.get("prices")) if p]
        protected = _protected(state, rootpath)
        try:
            launch = sandbox_launch(state.source.directory, readable, protected, gateway_dir)
        except SandboxError as exc:
            isolation.close()
            raise SettingsError(str(exc)) from None
    backend = ProcessBackend(launch, ref, config, name=state.source.name, preflight=preflight)
    try:
        backend.start()
    except Exception:
        isolation.close()
        raise
    isolation.backend = backend
    state.translator.backend = backend
    state._method = RemoteMethod(backend)
    # the gateway's budget is the harness's (--mteval-gateway-requests or REQUESTS_PER_ENTRY),
    # never the method's own max_calls_per_entry: a method could claim any number
    return isolation


def _plain_env() -> dict[str, str]:
    """The harness's environment without pytest's own variables (which may name the corpus)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


def _protected(state: RunState, rootpath: Path) -> list[Path]:
    settings = state.settings
    found = [state.corpus.path, rootpath / ".mteval", Path.home()]
    found += [p for p in (settings.run_card, settings.baseline) if p is not None]
    return [p for p in found if p != Path("/")]


def _gateway_for(
    isolation: Isolation,
    state: RunState,
    manifest: MethodManifest,
    rootpath: Path,
    workerinput: Any,
) -> tuple[RunConfig, Path]:
    """The gateway's socket folder (started here on the controller, inherited by workers) and
    the run configuration the method sees: the gateway as its endpoint, no key variable."""
    config = state.run_config
    given = workerinput.get(GATEWAY_SOCKET_KEY) if isinstance(workerinput, dict) else None
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
