"""The environment a runner starts with: cleared, then a few plain variables and those the
method declares in its method.json (``env``). The harness's own environment can hold an API
key, a corpus key (``--mteval-corpus-key-env``) or pytest's variables naming the corpus: none
of it reaches the method unless declared, and the corpus key's variable never does.

A method of class S, O or X reaches no service, so it has no use for a credential: a declared
name that looks like one (``GITHUB_TOKEN``, ``OPENROUTER_API_KEY``) is refused. An A1 method's
key is the gateway's, and only an A2 method (or a plain-runner LLM method) holds its own.
"""

from __future__ import annotations

import os
import re

from pytest_mteval.errors import SettingsError
from pytest_mteval.llm.chat_settings import DEFAULT_API_KEY_ENV
from pytest_mteval.run.run_state import RunState
from pytest_mteval.run.sandbox_policy import needs_network, reaches_no_service, uses_gateway

#: What Python and the shell tools need, copied from the harness when set (plain runner only).
_PLAIN = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Words of a variable's name (split at ``_``) that make it look like a credential.
_CREDENTIAL_WORDS = frozenset({
    "KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD",
    "PASS", "PASSPHRASE", "PWD", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "COOKIE",
    "SESSION", "PAT", "PRIVATE", "SIGNING", "BEARER", "OAUTH", "JWT", "DSN",
})  # fmt: skip
#: A word ending like one of these is one too (``GHTOKEN``, ``OPENAIKEY``).
_CREDENTIAL_SUFFIX = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$")


def looks_like_credential(name: str) -> bool:
    """Whether a variable's name says it holds a key, token or password."""
    words = [w for w in name.upper().split("_") if w]
    return any(w in _CREDENTIAL_WORDS or _CREDENTIAL_SUFFIX.search(w) for w in words)


def runner_env(state: RunState, home: str, sandboxed: bool, gateway: bool) -> dict[str, str]:
    """The runner's whole environment; SettingsError if the method declares a variable that
    only the harness may hold."""
    manifest = state.source.manifest
    settings = state.settings
    declared = list(manifest.env) if manifest is not None else []
    key_env = state.run_config.method_args.get("api_key_env", DEFAULT_API_KEY_ENV)
    offline = reaches_no_service(manifest)
    for name in declared:
        if offline and manifest is not None and looks_like_credential(name):
            raise SettingsError(
                f"method.json of {state.source.name!r}: field env names {name}, which looks "
                f"like a credential; a class {manifest.dependency_class} method reaches no "
                "service to use it on (an LLM's key is the gateway's, for class A1)"
            )
        if name == settings.corpus_key_env:
            raise SettingsError(
                f"method.json of {state.source.name!r}: env names {name}, the variable holding "
                "the corpus key, which only the harness reads"
            )
        if gateway and name == key_env:
            raise SettingsError(
                f"method.json of {state.source.name!r}: env names {name}, the API key the "
                "sandbox's gateway holds; the method reaches its model through the gateway"
            )
    env = {"HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    if sandboxed:
        env["PATH"] = SANDBOX_PATH
        calls_out = needs_network(manifest)  # with the host's network, it calls out itself
    else:
        env.update({k: os.environ[k] for k in _PLAIN if k in os.environ})
        env.setdefault("PATH", SANDBOX_PATH)
        calls_out = manifest is None or needs_network(manifest) or uses_gateway(manifest)
    if calls_out and not gateway and key_env and key_env != settings.corpus_key_env:
        declared.append(key_env)  # an LLM method outside the gateway holds its own key
    env.update({k: os.environ[k] for k in declared if k in os.environ})
    return env
