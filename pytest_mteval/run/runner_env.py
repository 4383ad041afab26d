"""The environment a runner starts with: cleared, then a few plain variables and those the
method declares in its method.json (``env``). The harness's own environment can hold an API
key, a corpus key (``--mteval-corpus-key-env``) or pytest's variables naming the corpus: none
of it reaches the method unless declared, and the corpus key's variable never does.
"""

from __future__ import annotations

import os

from pytest_mteval.errors import SettingsError
from pytest_mteval.llm.chat_settings import DEFAULT_API_KEY_ENV
from pytest_mteval.run.run_state import RunState

#: What Python and the shell tools need, copied from the harness when set (plain runner only).
_PLAIN = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


def runner_env(state: RunState, home: str, sandboxed: bool, gateway: bool) -> dict[str, str]:
    """The runner's whole environment; SettingsError if the method declares a variable that
    only the harness may hold."""
    manifest = state.source.manifest
    settings = state.settings
    declared = list(manifest.env) if manifest is not None else []
    key_env = state.run_config.method_args.get("api_key_env", DEFAULT_API_KEY_ENV)
    for name in declared:
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
    else:
        env.update({k: os.environ[k] for k in _PLAIN if k in os.environ})
        env.setdefault("PATH", SANDBOX_PATH)
        calls_out = manifest is None or manifest.dependency_class in ("A1", "A2", "X")
        if calls_out and key_env and key_env != settings.corpus_key_env:
            declared.append(key_env)  # a plain LLM method holds its own key, as it always did
    env.update({k: os.environ[k] for k in declared if k in os.environ})
    return env
