"""The plugin's options that ``mteval`` subcommands repeat (``--max-drop`` of ``mteval compare``
is ``--mteval-max-drop``), declared from the one option table so that both show the same
name, default and help."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mteval.option_catalog import spec
from pytest_mteval.option_spec import add_option

#: Which subcommand repeats which options, filled as the parser is built: docs/options.md and
#: the test that both ``--help`` agree read it.
SHARED: dict[str, tuple[str, ...]] = {}


def add_shared_options(
    command: str,
    add_argument: Callable[..., object],
    *names: str,
    unset: str | None = None,
    **extra: object,
) -> None:
    """Declare ``--NAME`` for each option ``--mteval-NAME`` on ``mteval COMMAND``, numbers
    typed; ``unset`` says what the subcommand does when one is not given (its default is then
    None)."""
    for name in names:
        add_option(add_argument, spec(name), prefix="--", typed=True, unset=unset, **extra)
    known = SHARED.get(command, ())
    SHARED[command] = known + tuple(name for name in names if name not in known)
