"""A method's ``translate`` must be ``async def``: a plain one is refused before the run.

The harness awaits ``translate``; a plain ``def`` returning a list failed every batch with
``TypeError: object list can't be used in 'await' expression`` at a harness frame. The
entry point's source is read, not imported, so the method's code still runs only in its
runner process.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pytest_mteval.errors import MethodLoadError


def refuse_plain_translate(file: Path, class_name: str) -> None:
    """One line naming the file and line when ``class_name.translate`` is a plain ``def``."""
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return  # importing it says what is wrong, in the runner, with its own frames
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and member.name == "translate":
                    raise MethodLoadError(
                        f"{file}:{member.lineno}: {class_name}.translate is a plain def; the "
                        "harness awaits it: write 'async def translate(self, entries, config)' "
                        "(docs/methods.md)"
                    )
