"""Which runner a run gets: the sandbox wherever the kernel allows it (``--mteval-sandbox=auto``,
the default), the plain runner otherwise with one warning, and never the plain runner (nor the
harness's own process) for a run that holds something a method must not reach: a secret
corpus, its key, the card's signing key or the gateway's budget.

Every dependency class runs sandboxed: an A2 method keeps the network it declares (the
``hostnet`` sandbox) and still sees neither the corpus nor the harness.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from pytest_mteval.errors import SettingsError
from pytest_mteval.methods.manifest import MethodManifest
from pytest_mteval.run.redaction import Secrecy
from pytest_mteval.run.run_settings import Settings
from pytest_mteval.run.run_state import RunState
from pytest_mteval.run.sandbox import BWRAP, HOST_NETWORK, NO_NETWORK, sandbox_problem


@dataclass(frozen=True)
class SandboxChoice:
    """The sandbox a run gets (``netns`` or ``none``), what was asked, and why not isolated."""

    sandbox: str
    requested: str
    not_isolated: str | None = None
    #: The run fell back to the plain runner without being asked to (auto).
    fell_back: bool = False

    @property
    def isolated(self) -> bool:
        """Whether the method runs in the sandbox (with or without the host's network)."""
        return self.sandbox in (NO_NETWORK, HOST_NETWORK)

    @property
    def binary(self) -> str | None:
        """The bubblewrap that built the sandbox, for the card."""
        return str(BWRAP) if self.isolated else None

    def warning(self) -> str | None:
        """The one terminal line of a run that fell back to the plain runner."""
        if not self.fell_back:
            return None
        return (
            f"mteval: WARNING: the method runs without the sandbox ({self.not_isolated}): it "
            "can read your files and use the network; the card records isolated: false"
        )


def needs_sandbox(settings: Settings, secrecy: Secrecy | None) -> str | None:
    """What in this run only the sandbox keeps from the method, or None."""
    if settings.corpus_key_file is not None or settings.corpus_key_env is not None:
        return "an encrypted corpus (its key)"
    # --mteval-scores-only alone is a choice about what the card shows, not secret data
    reasons = [r for r in (secrecy.reasons if secrecy else ()) if r != "--mteval-scores-only"]
    if reasons:
        return f"a secret run ({', '.join(reasons)})"
    if settings.sign_key is not None:
        return "--mteval-sign-key (the card's signing key)"
    if settings.gateway_requests:
        return "--mteval-gateway-requests (a gateway run)"
    return None


def _reached(manifest: MethodManifest | None) -> set[str]:
    """The classes the method's dependencies contribute (A2: a service it calls itself)."""
    return {d.contributes() for d in manifest.dependencies} if manifest is not None else set()


def needs_network(manifest: MethodManifest | None) -> bool:
    """Whether a dependency is reached over the network by the method itself (class A2's)."""
    return "A2" in _reached(manifest)


def uses_gateway(manifest: MethodManifest | None) -> bool:
    """Whether the method reaches its LLM through the gateway: an A1 dependency, no A2 one."""
    reached = _reached(manifest)
    return "A1" in reached and "A2" not in reached


def reaches_no_service(manifest: MethodManifest | None) -> bool:
    """Whether no dependency is a service (S, O and bundled X methods): no credential needed."""
    return manifest is not None and not _reached(manifest) & {"A1", "A2"}


def unsandboxable(state: RunState) -> str | None:
    """Why this method cannot run in the sandbox at all, or None."""
    if method_folder(state) is None:
        return (
            f"{state.source.name!r} is a registered method without a method.json declaring "
            "its dependencies"
        )
    return None


def method_folder(state: RunState) -> Path | None:
    """The folder the sandbox shows as the method's: its own, or for a method installed as a
    package (registered by entry point) that package's folder."""
    source = state.source
    if source.directory is not None:
        return source.directory
    entry_point = getattr(source.factory, "mteval_entry_point", None)
    if not isinstance(entry_point, str):
        return None
    try:
        spec = importlib.util.find_spec(entry_point.partition(":")[0])
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent


def check_in_process(settings: Settings, secrecy: Secrecy | None) -> None:
    """Refuse, before the method is imported into the harness, an in-process run that holds
    what only the sandbox protects."""
    if settings.sandbox == "netns":
        raise SettingsError("--mteval-sandbox=netns needs --mteval-runner=process")
    must = needs_sandbox(settings, secrecy)
    if must:
        raise SettingsError(
            f"{must} needs the sandbox, and --mteval-runner=inprocess runs the method in the "
            "harness itself: drop --mteval-runner=inprocess"
        )


def import_root(state: RunState) -> Path | None:
    """For a method installed as a package (registered by entry point): the ``sys.path``
    folder its module is imported from, which the sandbox shows and its runner imports from."""
    entry_point = getattr(state.source.factory, "mteval_entry_point", None)
    if not isinstance(entry_point, str):
        return None
    module = entry_point.partition(":")[0]
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin).resolve()
    depth = module.count(".") + (1 if origin.name == "__init__.py" else 0)
    return origin.parents[depth]


def choose_sandbox(state: RunState) -> SandboxChoice:
    """The run's sandbox, or SettingsError (one line: the reason and the way out)."""
    settings = state.settings
    requested = settings.sandbox
    must = needs_sandbox(settings, state.secrecy)
    if settings.runner == "inprocess":
        check_in_process(settings, state.secrecy)
        return SandboxChoice("none", requested, "--mteval-runner=inprocess")
    if requested == "none":
        if must:
            raise SettingsError(
                f"{must} needs the sandbox: drop --mteval-sandbox=none (the default, auto, "
                "uses it where the kernel allows)"
            )
        return SandboxChoice("none", requested, "--mteval-sandbox=none")
    why = unsandboxable(state)
    problem = sandbox_problem()
    networked = needs_network(state.source.manifest)
    if requested == "netns":
        if networked and why is None:
            manifest = state.source.manifest
            assert manifest is not None
            why = (
                f"method {manifest.method_id!r} is class {manifest.dependency_class}: it reaches "
                "a dependency over the network, which the network sandbox has none of (spec "
                "§8.6); the default (auto) runs it sandboxed with the host's network"
            )
        if why is not None or problem is not None:
            raise SettingsError(f"--mteval-sandbox=netns: {why or problem}")
        return SandboxChoice(NO_NETWORK, requested)
    why = why or problem
    if why is not None:
        if must:
            raise SettingsError(f"{must} needs the sandbox, which this run cannot use: {why}")
        return SandboxChoice("none", requested, why, fell_back=True)
    if networked:
        if must:
            raise SettingsError(
                f"{must} needs the network sandbox, and a method that calls a service itself "
                "(class A2) keeps the host's network: run it without secret data"
            )
        return SandboxChoice(HOST_NETWORK, requested)
    return SandboxChoice(NO_NETWORK, requested)
