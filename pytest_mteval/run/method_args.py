"""Method args checked at start: declared names and types, no credential pasted as a value,
and secret ones kept out of the card and the cache.

A typo in an arg name silently runs the method with its default (a paid run wasted), and a key
pasted as ``api_key=sk-...`` would be written to the card and the cache's fingerprint file. So
a method declares its args in method.json; an undeclared arg stops the run listing the known
ones, and a value equal to the content of an environment variable whose name looks like a
credential is refused whatever the method declares.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

from pytest_mteval.errors import SettingsError
from pytest_mteval.methods.manifest import MethodManifest
from pytest_mteval.methods.protocol import RunConfig

#: Environment variable names that hold credentials.
CREDENTIAL_NAME: Final = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
#: Shorter values are too common ("1", "true") to be told apart from a credential.
MIN_SECRET_LENGTH: Final = 8
#: What a secret arg's value becomes on the card and in the cache's fingerprint.
REDACTED: Final = "***"
_BOOLEANS: Final = frozenset({"true", "false", "1", "0", "yes", "no"})


def check_method_args(
    given: Mapping[str, str],
    manifest: MethodManifest | None,
    method: str,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Refuse, with one line, an arg the method does not declare, a value of the wrong type,
    or a value that is a credential from the environment."""
    env = os.environ if environ is None else environ
    credentials = {
        value: name
        for name, value in env.items()
        if CREDENTIAL_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
    }
    for name, value in given.items():
        if value in credentials:
            raise SettingsError(
                f"--mteval-method-arg {name}: the value is the content of the environment "
                f"variable {credentials[value]}, a credential; it would be written to the run "
                f"card. Name the variable instead (api_key_env={credentials[value]})"
            )
    declared = manifest.args if manifest is not None else None
    if declared is None:
        return  # a method that declares nothing takes any arg (older method.json files)
    for name, value in given.items():
        spec = declared.get(name)
        if spec is None:
            known = ", ".join(sorted(declared)) or "none"
            raise SettingsError(
                f"--mteval-method-arg {name}: method {method!r} has no arg {name!r} "
                f"(known: {known})"
            )
        problem = _type_problem(spec.type, value)
        if problem is not None:
            shown = REDACTED if spec.secret else repr(value)
            raise SettingsError(f"--mteval-method-arg {name}={shown}: {problem}")


def _type_problem(kind: str, value: str) -> str | None:
    if kind == "number":
        try:
            number = float(value)
        except ValueError:
            return "expects a number"
        return None if math.isfinite(number) else "expects a finite number"
    if kind == "integer":
        try:
            int(value)
        except ValueError:
            return "expects an integer"
        return None
    if kind == "boolean" and value.strip().lower() not in _BOOLEANS:
        return "expects true or false"
    if kind == "path" and not value.strip():
        return "expects a path"
    return None


def secret_names(manifest: MethodManifest | None) -> frozenset[str]:
    if manifest is None or manifest.args is None:
        return frozenset()
    return frozenset(name for name, spec in manifest.args.items() if spec.secret)


def public_config(config: RunConfig, secrets: Iterable[str]) -> RunConfig:
    """``config`` with the values of secret args replaced, for the card and the cache key."""
    hidden = frozenset(secrets)
    if not hidden & config.method_args.keys():
        return config
    args = {k: REDACTED if k in hidden else v for k, v in config.method_args.items()}
    return dataclasses.replace(config, method_args=args)
