"""Real Ed25519 key pairs made by `mteval keygen`, once per test session: the governance
organisation's (signs review records), a maintainer's and a developer's (signs its own cards)."""

from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
from pathlib import Path

ROLES = ("governance", "maintainer", "developer")


@functools.cache
def key_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="mteval-trust-keys-"))
    for role in ROLES:
        done = subprocess.run(
            [sys.executable, "-m", "pytest_mteval.cli.main", "keygen", str(folder / role)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return folder


def private(role: str) -> Path:
    return key_folder() / role


def public(role: str) -> Path:
    return key_folder() / f"{role}.pub"
