"""A user's repository outside the checkout, where the user's steps run as subprocesses: the
``pytest`` and ``mteval`` of this interpreter (pytest-mteval installed in it), a fresh working
folder with no ini file of this project, no ``PYTEST_*`` variables of the test session."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOOM_PY = """class Boom:
    async def translate(self, entries, config):
        return load_model(config)


def load_model(config):
    raise ValueError("model file missing: model.bin")
"""

IDENTITY_PY = """class MyMethod:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"], "error": None} for e in entries]
"""


def shipped_entries(name: str) -> list[dict[str, Any]]:
    """The entries of a corpus shipped with the package (human translations)."""
    from pytest_mteval.shipped_corpora import shipped_corpus

    data = json.loads(shipped_corpus(name).read_text(encoding="utf-8"))
    return list(data["entries"])


def method_json(method_id: str, entry_point: str) -> dict[str, Any]:
    """The complete minimal method.json that docs/first-hour.md shows."""
    return {
        "name": method_id,
        "method_id": method_id,
        "class": "custom-plugin",
        "entry_point": entry_point,
        "supported_pairs": ["*"],
        "dependency_class": "S",
        "dependencies": [],
    }


@dataclass
class Scratch:
    """A scratch repository and how to run a user's command in it."""

    root: Path

    def write(self, relative: str, text: str | dict[str, Any]) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        body = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, indent=1)
        path.write_text(body, encoding="utf-8")
        return path

    def run(
        self, command: str, cwd: Path | None = None, **extra_env: str
    ) -> subprocess.CompletedProcess[str]:
        """``command`` as a shell would run it in the repository (``pytest``/``mteval`` are this
        interpreter's)."""
        argv = shlex.split(command)
        if argv[0] == "pytest":
            argv = [sys.executable, "-m", "pytest", *argv[1:]]
        elif argv[0] == "mteval":
            argv = [str(Path(sys.executable).with_name("mteval")), *argv[1:]]
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))}
        environ.pop("OPENROUTER_API_KEY", None)
        environ.update(extra_env)
        return subprocess.run(
            argv,
            cwd=cwd or self.root,
            env=environ,
            capture_output=True,
            text=True,
            timeout=600,
        )
