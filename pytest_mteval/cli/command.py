"""The one shape of an ``mteval`` subcommand, and the one place that turns it into argparse
subparsers, so that every command is declared alike and typed: a module of ``cli/`` defines
``Command`` values, ``cli/main.py`` lists them, and nothing else calls ``add_parser``."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: What a command does with its parsed arguments: the exit status.
Run = Callable[[argparse.Namespace], int]
#: What a command declares on its own parser.
AddArguments = Callable[[argparse.ArgumentParser], None]


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of a command that takes none."""


@dataclass(frozen=True)
class Command:
    """One ``mteval`` subcommand: ``run`` for a command, ``subcommands`` for a group
    (``mteval corpus lint``); ``help`` is the one line ``--help`` lists it with (lower case,
    no final period), ``description`` what its own ``--help`` says first."""

    name: str
    help: str
    add_arguments: AddArguments = no_arguments
    run: Run | None = None
    description: str | None = None
    subcommands: tuple[Command, ...] = ()

    def __post_init__(self) -> None:
        if (self.run is None) == (not self.subcommands):
            raise ValueError(f"mteval {self.name}: a command has either run or subcommands")


def add_commands(
    parser: argparse.ArgumentParser, commands: Sequence[Command], dest: str = "command"
) -> None:
    """Declare ``commands`` as the required subcommands of ``parser``; the chosen leaf's
    ``run`` is ``args.run``."""
    choices = parser.add_subparsers(dest=dest, required=True, metavar="COMMAND")
    for command in commands:
        child = choices.add_parser(
            command.name, help=command.help, description=command.description or _sentence(command)
        )
        command.add_arguments(child)
        if command.subcommands:
            add_commands(child, command.subcommands, dest=f"{dest}_{command.name}")
        else:
            child.set_defaults(run=command.run)


def _sentence(command: Command) -> str:
    """The help line as the description's sentence, when a command has no description."""
    return command.help[:1].upper() + command.help[1:] + "."
