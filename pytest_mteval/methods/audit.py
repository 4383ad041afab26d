"""A static audit of a method folder: what its code can reach, against its declared class.

Every ``.py`` file under the folder is parsed (``ast``, never imported) and every import, call
and attribute is resolved through the file's import aliases to a dotted name, which is
looked up in the tables of ``audit_rules.py``. The findings fall in seven categories; a
category contradicts a dependency class when the spec's class forbids it (§8.6: S and O run
offline, A1 reaches its model only through the gateway, no method may read the harness's
memory):

- ``network``: socket, HTTP/FTP/SMTP clients and servers. Allowed in A2 and X only.
- ``llm_client``: the harness's own LLM client (``pytest_mteval.llm.client``, ``chat_method``), the
  path the gateway serves. Allowed in A1, A2 and X.
- ``introspection``: ``gc``, stack frames, ``sys.argv``, tracing hooks: reading the harness's
  memory or command line (where the corpus path is). Allowed in no class.
- ``subprocess`` and ``native_code`` (ctypes, cffi, shared libraries, bytecode without source):
  in S and O only with a declared dependency of kind ``software``.
- ``outside_files``: a path written out (a string, an f-string's start) that is outside the
  folder: absolute elsewhere, with ``..``, in the home folder, or relative (to the harness's
  working folder, not the method's: build paths from ``__file__``). In S and O
  only with a declared dependency of kind ``data``.
- ``dynamic_code``: exec, eval, ``__import__``, importlib, pickle: reported, never a
  contradiction on its own (it hides what the code does; ``--strict`` fails on it).

JavaScript files (``.js``, ``.cjs``, ``.mjs``) are read by ``audit_js.py`` into the same
categories. What the audit cannot read (a shell script, a compiled program, a command runtime
starting one, a script outside the folder) is listed as not audited: such a folder never passes.

A static audit is a reviewer's aid, not a sandbox: code can hide from it (a name built at run
time, an object passed in). The sandbox enforces; the audit says what the author declared by
writing it plainly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Final

from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.audit_js import audit_javascript
from pytest_mteval.methods.audit_rules import (
    ALLOWED,
    CATEGORIES,
    DECLARED_BY_KIND,
    JS_SUFFIXES,
    MODULES,
    NAMES,
    NATIVE_SUFFIXES,
    NODE_INTERPRETERS,
    PATH_CALLS,
    PREFIXES,
    PYTHON_INTERPRETERS,
    WHY,
)
from pytest_mteval.methods.manifest import ManifestError, MethodManifest, load_manifest

__all__ = ["CATEGORIES", "AuditError", "AuditResult", "Finding", "audit_flags", "audit_method"]

_SKIPPED_DIRS: Final = frozenset({"__pycache__", ".git", ".mteval", ".pytest_cache"})
#: Suffixes of programs in languages the audit does not read.
_SCRIPT_SUFFIXES: Final = frozenset({".sh", ".bash", ".zsh", ".pl", ".rb", ".php", ".lua", ".ps1"})


class AuditError(MtevalError):
    """A folder that cannot be audited; the message is one line."""


@dataclass(frozen=True)
class Finding:
    category: str
    file: str
    line: int
    what: str


@dataclass
class AuditResult:
    folder: str
    dependency_class: str
    files: int
    findings: list[Finding] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    #: What the audit could not read: a folder with any never passes.
    not_audited: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.contradictions and not self.not_audited

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "dependency_class": self.dependency_class,
            "files": self.files,
            "findings": [asdict(f) for f in self.findings],
            "contradictions": list(self.contradictions),
            "not_audited": list(self.not_audited),
        }


def audit_method(folder: Path) -> AuditResult:
    """Audit the method folder holding ``method.json``."""
    folder = folder.resolve()
    try:
        manifest = load_manifest(folder / "method.json")
    except ManifestError as exc:
        raise AuditError(str(exc)) from None
    findings: list[Finding] = []
    not_audited = _runtime_not_audited(manifest, folder)
    files = 0
    for path in _files(folder):
        rel = path.relative_to(folder).as_posix()
        language = _language(path)
        if language == "python":
            files += 1
            findings.extend(_audit_source(path, rel, folder))
        elif language == "javascript":
            files += 1
            findings.extend(_audit_javascript(path, rel, folder))
        elif NATIVE_SUFFIXES & set(path.suffixes) or path.suffix in (".pyc", ".node"):
            findings.append(Finding("native_code", rel, 0, f"compiled file {path.name}"))
        elif language == "binary":
            findings.append(Finding("native_code", rel, 0, f"compiled program {path.name}"))
            not_audited.append(f"{rel} is a compiled program the audit cannot read")
        elif language is not None:
            not_audited.append(f"{rel} is a {language} program the audit cannot read")
    findings.sort(key=lambda f: (CATEGORIES.index(f.category), f.file, f.line, f.what))
    return AuditResult(
        str(folder),
        manifest.dependency_class,
        files,
        findings,
        contradictions(manifest, findings),
        not_audited,
    )


def _language(path: Path) -> str | None:
    """What a file is to the audit: python, javascript, binary (a compiled program), the
    interpreter a script names, ``script`` for another executable; None for data."""
    if path.suffix in (".py", ".pyw"):
        return "python"
    if path.suffix in JS_SUFFIXES:
        return "javascript"
    try:
        with path.open("rb") as handle:
            head = handle.read(256)
        executable = bool(path.stat().st_mode & 0o111)
    except OSError:
        return None
    if head.startswith((b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")):
        return "binary"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n")[0].decode("utf-8", "replace").split()
        program = _interpreter(words)
        if PYTHON_INTERPRETERS.fullmatch(program):
            return "python"
        if NODE_INTERPRETERS.fullmatch(program):
            return "javascript"
        return program or "script"
    if path.suffix in _SCRIPT_SUFFIXES or (executable and not path.suffix):
        return path.suffix.lstrip(".") or "script"
    return None


def _interpreter(words: list[str]) -> str:
    """The program a shebang or command starts (``/usr/bin/env python3`` -> ``python3``)."""
    names = [PurePosixPath(w).name for w in words]
    if names[:1] == ["env"]:
        names = [n for n in names[1:] if not n.startswith("-") and "=" not in n]
    return names[0] if names else ""


def _runtime_not_audited(manifest: MethodManifest, folder: Path) -> list[str]:
    """Why a command runtime escapes the audit: it starts a program other than Python or
    Node.js, or a script that is not a file of the folder."""
    if not isinstance(manifest.runtime, list):
        return []
    command = manifest.runtime
    shown = " ".join(command)
    program = _interpreter(command[:2] if PurePosixPath(command[0]).name == "env" else command[:1])
    if "/" in command[0] and PurePosixPath(command[0]).name != "env":
        target = (folder / command[0]).resolve()
        if not target.is_relative_to(folder) or not target.is_file():
            return [f"runtime {shown!r} starts {command[0]}, outside the method's folder"]
        if _language(target) in ("python", "javascript"):
            return []
        return [f"runtime {shown!r} starts {command[0]}, a program the audit cannot read"]
    if not (PYTHON_INTERPRETERS.fullmatch(program) or NODE_INTERPRETERS.fullmatch(program)):
        return [f"runtime {shown!r} starts {program}, a program the audit cannot read"]
    scripts = [a for a in command[1:] if not a.startswith("-") and a != program]
    if not scripts:
        return [f"runtime {shown!r} names no script file of the method's folder"]
    target = (folder / scripts[0]).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        return [f"runtime {shown!r} runs {scripts[0]}, not a file of the method's folder"]
    return []


def contradictions(manifest: MethodManifest, findings: list[Finding]) -> list[str]:
    """One line per category the declared class forbids, naming the first place it occurs."""
    cls = manifest.dependency_class
    kinds = {d.kind for d in manifest.dependencies}
    out: list[str] = []
    for category in CATEGORIES:
        found = [f for f in findings if f.category == category]
        if not found or category in ALLOWED[cls]:
            continue
        if cls in ("S", "O") and DECLARED_BY_KIND.get(category) in kinds:
            continue
        first = found[0]
        out.append(
            f"class {cls} method has {category} ({first.what} at {first.file}:{first.line}"
            f"{f' and {len(found) - 1} more' if len(found) > 1 else ''}): {WHY[category]}"
        )
    return out


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if path.is_file() and not _SKIPPED_DIRS & set(parts):
            yield path


def _audit_source(path: Path, rel: str, folder: Path) -> list[Finding]:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError) as exc:
        return [Finding("dynamic_code", rel, getattr(exc, "lineno", 0) or 0, "unparseable file")]
    visitor = _Visitor(rel, folder, path.parent)
    visitor.visit(tree)
    return sorted(set(visitor.findings), key=lambda f: (f.line, f.what))


def _audit_javascript(path: Path, rel: str, folder: Path) -> list[Finding]:
    try:
        source = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return [Finding("dynamic_code", rel, 0, "unparseable file (not UTF-8 text)")]
    outside = _Visitor(rel, folder, path.parent)._outside
    return [Finding(f.category, rel, f.line, f.what) for f in audit_javascript(source, outside)]


class _Visitor(ast.NodeVisitor):
    def __init__(self, rel: str, folder: Path, here: Path) -> None:
        self.rel = rel
        self.folder = folder
        self.here = here
        self.aliases: dict[str, str] = {}
        self.findings: list[Finding] = []
        self.reported: set[str] = set()  # modules reported already (by import or first use)

    def _add(self, category: str, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(category, self.rel, getattr(node, "lineno", 0), what))

    def _module(self, name: str, node: ast.AST, verb: str = "import") -> None:
        for module, category in MODULES.items():
            if name == module or name.startswith(module + "."):
                if verb == "import" or module not in self.reported:
                    self._add(category, node, f"{verb} {name}")
                self.reported.add(module)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(alias.name, node)
            local = alias.asname or alias.name.split(".")[0]
            self.aliases[local] = alias.name if alias.asname else local
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self._module(node.module, node)
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                self._name(full, node)
                self.aliases[alias.asname or alias.name] = full
        self.generic_visit(node)

    def qualify(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def _name(self, name: str, node: ast.AST) -> None:
        category = NAMES.get(name)
        if category is None:
            category = next((c for p, c in PREFIXES if name.startswith(p)), None)
        if category is not None:
            self._add(category, node, name)

    def visit_Name(self, node: ast.Name) -> None:
        name = self.aliases.get(node.id, node.id)
        if name in NAMES and name not in MODULES:  # an imported module was reported already
            self._name(name, node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.qualify(node)
        if name is not None:
            self._name(name, node)
            self._module(name, node, "use of")  # ``import urllib`` then urllib.request...
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self.qualify(node.func)
        if name == "getattr" and len(node.args) >= 2:  # getattr(os, "system") is os.system
            base, attr = self.qualify(node.args[0]), node.args[1]
            if base is not None and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                self._name(f"{base}.{attr.value}", node)
                self._module(f"{base}.{attr.value}", node, "use of")
        if name in PATH_CALLS and node.args:
            literal = _literal_path(node.args[0])
            if literal is not None and self._outside(literal):
                self._add("outside_files", node, f"{name}({literal!r})")
        self.generic_visit(node)

    def _outside(self, literal: str) -> bool:
        """A relative literal is relative to the harness's working folder, not the method's."""
        if literal.startswith("/") and ".." not in PurePosixPath(literal).parts:
            return not Path(literal).resolve().is_relative_to(self.folder)
        return True


def _literal_path(node: ast.AST) -> str | None:
    """A path argument's text when it is written out: a string, or an f-string's fixed start."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def audit_flags(audit: dict[str, Any]) -> list[dict[str, Any]]:
    """Run card flags (``guards.Flag`` shape) for a recorded audit's contradictions and for
    what it could not read."""
    return [
        {"code": "method_audit_contradiction", "message": line, "entry_ids": []}
        for line in audit.get("contradictions") or []
    ] + [
        {"code": "method_not_audited", "message": f"not audited: {line}", "entry_ids": []}
        for line in audit.get("not_audited") or []
    ]
