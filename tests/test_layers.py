"""The house's layers (docs/layers.md), checked on the source: a floor imports only itself and
the floors below it, only the pytest layer imports pytest, nothing imports pytest's private
``_pytest`` (but for the one module that builds a report pytest can summarise in one line,
which has no public type), only ``plugin/hooks.py`` and ``plugin/run_hooks.py`` call hooks,
and every module stays small.

Imports are read with ``ast`` from every module, including imports inside functions, since a
deferred import is still a dependency. The shipped methods (``methods/shipped``) are method
plugins like any user's and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_mteval"

#: Lowest first; a module may import its own floor and those below (docs/layers.md).
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "languages", "corpus_model", "corpus", "flat_corpus", "shipped_corpora"})
    | {"option_spec", "option_catalog"},  # the option table, pure data
    frozenset({"metrics"}),
    frozenset({"scoring"}),
    frozenset({"methods", "llm"}),  # chat methods use the client; the client, their types
    frozenset({"run"}),
    frozenset({"cards"}),
    frozenset({"reports", "review", "sweep", "corpus_tools"}),
    frozenset({"history"}),
    frozenset({"plugin"}),
    frozenset({"cli"}),
)
PYTEST_PACKAGES = {"pytest", "_pytest", "xdist"}
#: The one user of ``_pytest``: pytest's report parts, the only form of a failure text whose
#: short-summary line pytest does not widen to the whole text on CI (plugin/failure_text.py).
PRIVATE_PYTEST_USERS = {PACKAGE / "plugin" / "failure_text.py"}
MAX_LINES = 300


def _modules() -> list[Path]:
    shipped = PACKAGE / "methods" / "shipped"
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if not path.is_relative_to(shipped) and path.name != "__init__.py"
    )


def _floor_of(part: str) -> int:
    for level, names in enumerate(FLOORS):
        if part in names:
            return level
    raise AssertionError(f"{part!r} is on no floor of tests/test_layers.py: add it")


def _part_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_every_floor_imports_only_itself_and_the_floors_below():
    upward = []
    for path in _modules():
        mine = _floor_of(_part_of(path))
        for line, module in _imports(path):
            parts = module.split(".")
            if parts[0] != "pytest_mteval" or len(parts) < 2:
                continue
            theirs = _floor_of(parts[1])
            if theirs > mine:
                upward.append(f"{_name(path)}:{line} imports {module} (a higher floor)")
    assert upward == []


def test_only_the_pytest_layer_imports_pytest_and_nothing_its_private_parts():
    wrong = []
    for path in _modules():
        for line, module in _imports(path):
            top = module.split(".")[0]
            private = top == "_pytest" and path not in PRIVATE_PYTEST_USERS
            if private or (top in PYTEST_PACKAGES and _part_of(path) != "plugin"):
                wrong.append(f"{_name(path)}:{line} imports {module}")
    assert wrong == []


def test_only_hooks_py_calls_the_hooks_of_other_plugins():
    calls = []
    for path in _modules():
        if path in (PACKAGE / "plugin" / "hooks.py", PACKAGE / "plugin" / "run_hooks.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {"hook", "ihook"}:
                calls.append(f"{_name(path)}:{node.lineno} uses .{node.attr}")
    assert calls == []


def test_every_module_is_small():
    long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            long[_name(path)] = lines
    assert long == {}, f"split these by idea (at most {MAX_LINES} lines each)"
