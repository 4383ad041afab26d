"""The house's layers (docs/layers.md), checked on the source: a floor imports only itself and
the floors below it, only the pytest layer imports pytest, nothing but ``plugin/failure_text.py``
imports pytest's private ``_pytest`` (pytest has no public type for a report it summarises in
one line), nothing but ``plugin/xdist_internals.py`` imports xdist or touches its internals,
only ``plugin/hooks.py`` and ``plugin/run_hooks.py`` call hooks, and every module stays small.

Imports are read with ``ast`` from every module and package ``__init__.py``: relative ones
(``from . import x``, ``from ..cards import y``) and those inside functions, since a deferred
import is still a dependency. The shipped methods (``methods/shipped``) are method plugins like
any user's and are left out.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_mteval"
#: ``pytest_mteval/__init__.py``, the package's public names: every ``import pytest_mteval``
#: and every ``from pytest_mteval import x`` of a name that is not a module depends on it.
TOP = "__init__"

#: Lowest first; a module may import its own floor and those below (docs/layers.md).
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "json_files", "output_paths", "languages", "corpus_model", "corpus"})
    | {"flat_corpus", "shipped_corpora", "terminal_text", "plain_files"}
    | {"option_spec", "option_catalog"},  # the option table, pure data
    frozenset({"metrics"}),
    frozenset({"scoring"}),
    # chat methods use the client; the client, their types; the package exports the types
    frozenset({"methods", "llm", TOP}),
    frozenset({"run"}),
    frozenset({"cards"}),
    frozenset({"reports", "review", "sweep", "corpus_tools"}),
    frozenset({"history"}),
    frozenset({"plugin"}),
    frozenset({"cli", "api"}),  # the API runs the session as the command line does
)
#: The one import of a higher floor: the package re-exports ``api.evaluate`` lazily (PEP 562
#: ``__getattr__``, and for type checkers only), so importing the package loads no more.
LAZY_EXPORTS = {
    (PACKAGE / "__init__.py", "pytest_mteval.api"),
    (PACKAGE / "__init__.py", "pytest_mteval.api.evaluate"),
}
PYTEST_PACKAGES = {"pytest", "_pytest", "xdist"}
#: The one user of ``_pytest``: pytest's report parts, the only form of a failure text whose
#: short-summary line pytest does not widen to the whole text on CI (plugin/failure_text.py).
PRIVATE_PYTEST_USERS = {PACKAGE / "plugin" / "failure_text.py"}
#: The one user of xdist's internals: its scheduler extended, its workers told apart
#: (plugin/xdist_internals.py, docs/layers.md).
XDIST_INTERNALS = PACKAGE / "plugin" / "xdist_internals.py"
#: xdist's parts that are public in name only: the scheduler's state and a node's method, the
#: data a worker is handed (``workerinput``) or hands back (``workeroutput``), and the
#: controller's plugin (``dsession``).
XDIST_PARTS = frozenset(
    {"registered_collections", "assigned_work", "workqueue", "send_runtest_some"}
    | {"workerinput", "workeroutput", "dsession"}
)


def _modules() -> list[Path]:
    """Every module and package ``__init__.py`` but the shipped methods'."""
    shipped = PACKAGE / "methods" / "shipped"
    return sorted(path for path in PACKAGE.rglob("*.py") if not path.is_relative_to(shipped))


def _floor_of(part: str) -> int:
    for level, names in enumerate(FLOORS):
        if part in names:
            return level
    raise AssertionError(f"{part!r} is on no floor of tests/test_layers.py: add it")


def _part_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _part_imported(module: str) -> str:
    """The folder or top-level module of the package that ``module`` names (or TOP)."""
    parts = module.split(".")
    if len(parts) > 1 and ((PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").exists()):
        return parts[1]
    return TOP


def _absolute(path: Path, node: ast.ImportFrom) -> list[str]:
    """The modules ``from X import a, b`` may name: X, and X.a, X.b (a may be a module); a
    relative X is resolved against ``path``'s package."""
    base = node.module or ""
    if node.level:
        package = ["pytest_mteval", *path.relative_to(PACKAGE).parts[:-1]]
        if node.level > len(package):
            raise AssertionError(f"{_name(path)}:{node.lineno} imports beyond the package")
        base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(node.lineno, module) for module in _absolute(path, node)]
        elif isinstance(node, ast.Call) and _dynamic_import(node):
            found.append((node.lineno, node.args[0].value))  # type: ignore[attr-defined]
    return found


def _dynamic_import(call: ast.Call) -> bool:
    """``importlib.import_module("x")`` or ``__import__("x")`` with a literal name."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = call.args[0] if call.args else None
    literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
    return name in {"import_module", "__import__"} and literal


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_every_floor_imports_only_itself_and_the_floors_below():
    upward = []
    for path in _modules():
        mine = _floor_of(_part_of(path))
        for line, module in _imports(path):
            if module.split(".")[0] != "pytest_mteval":
                continue
            if _floor_of(_part_imported(module)) > mine and (path, module) not in LAZY_EXPORTS:
                upward.append(f"{_name(path)}:{line} imports {module} (a higher floor)")
    assert sorted(set(upward)) == []


def test_only_the_pytest_layer_imports_pytest_and_nothing_its_private_parts():
    wrong = []
    for path in _modules():
        for line, module in _imports(path):
            top = module.split(".")[0]
            private = top == "_pytest" and path not in PRIVATE_PYTEST_USERS
            xdist = top == "xdist" and path != XDIST_INTERNALS
            if private or xdist or (top in PYTEST_PACKAGES and _part_of(path) != "plugin"):
                wrong.append(f"{_name(path)}:{line} imports {module}")
    assert wrong == []


@cache
def _xdist_private_names() -> frozenset[str]:
    """The names with one leading '_' that the installed xdist defines: its private functions,
    methods and attributes."""
    spec = importlib.util.find_spec("xdist")
    origin = spec.origin if spec is not None else None
    assert origin is not None, "pytest-xdist is a dependency"
    names = set()
    for source in Path(origin).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return frozenset(n for n in names if n.startswith("_") and not n.startswith("__"))


def _xdist_uses(path: Path) -> list[str]:
    """Where ``path`` touches xdist's internals: a private name of xdist's on another object
    than ``self`` (``super()._split_scope``) or overridden in a subclass, a part of
    XDIST_PARTS named, or one of xdist's ``PYTEST_XDIST_*`` variables."""
    private = _xdist_private_names()
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            on_self = isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
            if node.attr in XDIST_PARTS or (node.attr in private and not on_self):
                found.append(f"{_name(path)}:{node.lineno} uses .{node.attr}")
        elif isinstance(node, ast.ClassDef) and node.bases:
            found += [
                f"{_name(path)}:{item.lineno} overrides {item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in private
            ]
        elif isinstance(node, ast.Constant) and _xdist_string(node.value):
            found.append(f"{_name(path)}:{node.lineno} names {node.value!r}")
    return found


def _xdist_string(value: object) -> bool:
    return isinstance(value, str) and (value in XDIST_PARTS or value.startswith("PYTEST_XDIST_"))


def test_only_xdist_internals_py_touches_the_internals_of_xdist():
    touched = [use for path in _modules() if path != XDIST_INTERNALS for use in _xdist_uses(path)]
    assert touched == [], "xdist's internals belong in plugin/xdist_internals.py alone"


def test_the_xdist_rule_sees_what_xdist_internals_py_uses():
    uses = " ".join(_xdist_uses(XDIST_INTERNALS))
    for seen in ("uses ._split_scope", "overrides _assign_work_unit", "uses .workerinput"):
        assert seen in uses
    assert ".workqueue" in uses


def test_only_hooks_py_calls_the_hooks_of_other_plugins():
    calls = []
    for path in _modules():
        if path in (PACKAGE / "plugin" / "hooks.py", PACKAGE / "plugin" / "run_hooks.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {"hook", "ihook"}:
                calls.append(f"{_name(path)}:{node.lineno} uses .{node.attr}")
    assert calls == []
