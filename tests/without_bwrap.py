"""A pytest process on a machine without bubblewrap: a plugin that points the harness at a
bwrap path where none is installed (the harness never looks on PATH, so PATH cannot)."""

from __future__ import annotations

import os
from pathlib import Path

PLUGIN = "mteval_without_bwrap"
_CODE = """
from pathlib import Path
from pytest_mteval.run import sandbox
sandbox.BWRAP = Path(__file__).with_name("not-installed") / "bwrap"
sandbox.sandbox_problem.cache_clear()
"""


def without_bwrap(
    folder: Path, env: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The pytest arguments and environment of such a process, started in ``folder``."""
    plugins = folder / "plugins"
    plugins.mkdir(exist_ok=True)
    (plugins / f"{PLUGIN}.py").write_text(_CODE, encoding="utf-8")
    env = dict(env if env is not None else os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugins), env.get("PYTHONPATH")]))
    return ["-p", PLUGIN], env
