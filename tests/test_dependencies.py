"""The runtime dependencies in pyproject.toml are what the package imports: none unused (a user
installs each of them), none imported but only arriving through another one."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "pytest_mteval"


def _names(requirements: list[str]) -> set[str]:
    return {
        re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements
    }


def _imported_distributions() -> set[str]:
    """The distributions that the package's modules import (inside functions too)."""
    modules: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    third_party = modules - set(sys.stdlib_module_names) - {"pytest_mteval", "_pytest"}
    owners = packages_distributions()
    return {d.lower().replace("_", "-") for m in third_party for d in owners.get(m, [m])}


def test_every_runtime_dependency_is_imported_and_every_import_declared() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = _names(project["dependencies"])
    extras = _names([r for group in project["optional-dependencies"].values() for r in group])
    imported = _imported_distributions()
    assert runtime - imported == set(), "declared but never imported"
    assert imported - runtime - extras == set(), "imported but not declared"
