"""How a runner process finds the method it runs: a folder, or a factory it can import.

The harness never hands a Python object to the runner, only a reference: a method folder
(its method.json names the code) or, for a method registered through the
``pytest_mteval_methods`` hook, the module and name of its factory. A lambda or a function
defined inside another cannot be named, so such a method runs only with
``--mteval-runner=inprocess``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mteval.errors import MethodLoadError
from pytest_mteval.methods.entry_point import build_instance, import_entry_point
from pytest_mteval.methods.harness_manifest import shim_note
from pytest_mteval.methods.protocol import DescribesPrompt, RunConfig, TranslationMethod

if TYPE_CHECKING:  # the runner process never loads the manifest's models (entry_point.py)
    from pytest_mteval.methods.loader import MethodSource

MethodRef = dict[str, Any]


def method_ref(source: MethodSource) -> MethodRef:
    """The reference a runner needs to build ``source``; MethodLoadError when there is none."""
    entry_point = getattr(source.factory, "mteval_entry_point", None)
    if isinstance(entry_point, str):  # an installed package's class: importable by name
        return {"kind": "entry_point", "value": entry_point}
    if source.directory is not None and source.manifest is not None:
        # the entry point as the harness read and checked it: the runner imports it without
        # reading method.json again (nor hashing the code again)
        entry = source.entry_point or source.manifest.entry_for(source.runtime)
        shim = bool(shim_note(source.manifest.model_extra))
        return {"kind": "folder", "path": str(source.directory), "entry_point": entry,
                "harness_shim": shim}  # fmt: skip
    factory = source.factory
    module_name = getattr(factory, "__module__", None)
    qualname = getattr(factory, "__qualname__", "")
    module = sys.modules.get(module_name or "")
    if module is None or "<" in qualname or not qualname:
        raise MethodLoadError(
            f"method {source.name!r} is registered by a factory the runner process cannot "
            f"import ({qualname or type(factory).__name__} in {module_name}): register a "
            "module-level function or class, or run with --mteval-runner=inprocess"
        )
    file = getattr(module, "__file__", None)
    paths = [p for p in sys.path if isinstance(p, str)]
    return {"kind": "factory", "module": module_name, "file": file, "qualname": qualname,
            "sys_path": paths}  # fmt: skip


def build_method(ref: MethodRef, config: RunConfig) -> TranslationMethod:
    """Inside the runner: import and construct the method named by ``ref``."""
    if ref.get("kind") == "folder":
        folder, entry = Path(str(ref["path"])).resolve(), str(ref["entry_point"])
        cls = import_entry_point(folder, entry)
        return build_instance(cls, folder, entry, bool(ref.get("harness_shim")))
    if ref.get("kind") == "entry_point":
        for path in ref.get("sys_path") or []:  # the sandbox runs Python isolated (-I)
            if path not in sys.path:
                sys.path.insert(0, path)
        module_name, _, attr = str(ref["value"]).partition(":")
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
        return target()  # type: ignore[no-any-return]
    for path in reversed(ref.get("sys_path") or []):
        if path not in sys.path:
            sys.path.insert(0, path)
    module = _import(str(ref["module"]), ref.get("file"))
    target = module
    for part in str(ref["qualname"]).split("."):
        target = getattr(target, part)
    return target(config)  # type: ignore[no-any-return]


def _import(name: str, file: str | None) -> Any:
    """The factory's module: from its file when it has one (``conftest`` names many files),
    else by name."""
    if not file:
        return importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise MethodLoadError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def describe(method: TranslationMethod, config: RunConfig) -> dict[str, Any]:
    """What the harness asks of a method besides translations (card fields, dry run, cache),
    asked once in the runner; a failing answer is kept as its error message."""
    out: dict[str, Any] = {"class_name": type(method).__name__, "errors": {}}

    def ask(key: str, call: Any) -> None:
        try:
            value = call()
        except Exception as exc:
            out["errors"][key] = f"{type(exc).__name__}: {exc}"
            return
        try:
            _json_safe(value)
        except (TypeError, ValueError, RecursionError) as exc:
            out["errors"][key] = f"{key} is not plain JSON: {exc}"
            return
        out[key] = value

    if isinstance(method, DescribesPrompt):
        ask("system_prompt", lambda: method.system_prompt(config))
    fields = getattr(method, "run_card_fields", None)
    if callable(fields):
        ask("run_card_fields", lambda: fields(config))
    calls = getattr(method, "max_calls_per_entry", None)
    if callable(calls):
        ask("max_calls_per_entry", lambda: int(calls(config)))
    ask("tools_enabled", lambda: getattr(method, "tools_enabled", []) or [])
    ask("cacheable", lambda: bool(getattr(method, "cacheable", True)))
    return out


def _json_safe(value: Any) -> None:
    import json

    json.dumps(value, allow_nan=False)
