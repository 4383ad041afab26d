"""What the harness starts or hands a method beyond its folder, bound into its code hash.

The folder's hash alone let other code run under one hash: a command's interpreter, or a
prompt file named by a ``path`` method arg. Each such input joins ``method.code`` (rule 2 of
``methods/code_hash.py``), so steward authorisations, reproductions and bundles name it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from pytest_mteval.errors import SettingsError
from pytest_mteval.methods.code_hash import CodeHashError, with_inputs
from pytest_mteval.methods.loader import MethodSource
from pytest_mteval.run.runtimes import command_interpreter, command_program

#: Path args that tune the harness's bookkeeping, not what the method outputs.
NOT_CODE: Final = frozenset({"prices"})


def path_arg_file(value: str, folder: Path | None) -> Path | None:
    """The file or folder a path arg names: as given (from where pytest started), else in
    the method folder, as the shipped methods read it; None when there is none."""
    given = Path(value).expanduser()
    for candidate in (given, folder / given if folder is not None else None):
        if candidate is not None and candidate.exists():
            return candidate.resolve()
    return None


def code_inputs(source: MethodSource, method_args: Mapping[str, str]) -> list[tuple[str, Path]]:
    """(role, path) of every input from outside the hash of the folder alone."""
    found: list[tuple[str, Path]] = []
    if source.runtime == "command" and source.directory is not None:
        interpreter = command_interpreter(source, command_program(source))
        if interpreter is not None and not interpreter.is_relative_to(source.directory):
            found.append(("interpreter", interpreter))
    declared = source.manifest.args if source.manifest is not None else None
    for name, spec in (declared or {}).items():
        value = method_args.get(name)
        if spec.type != "path" or name in NOT_CODE or not value:
            continue
        path = path_arg_file(value, source.directory)
        if path is not None:
            found.append((f"arg:{name}", path))
    return found


def bind_code(source: MethodSource, method_args: Mapping[str, str]) -> MethodSource:
    """``source`` with its code record covering its inputs (SettingsError, one line, when a
    command reaches outside its folder or an input cannot be read)."""
    inputs = code_inputs(source, method_args)
    if not inputs or source.code is None:
        return source
    try:
        return dataclasses.replace(source, code=with_inputs(source.code, inputs))
    except CodeHashError as exc:
        raise SettingsError(str(exc)) from None
