"""Every ``mteval`` command is a ``Command`` of the one list in ``cli/main.py``: each one's
``--help`` works, from the installed entry point too, and every command and argument has a help
line in the one style (lower case, no final period), so ``mteval --help`` reads as one text."""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import sys
from collections.abc import Iterator

import pytest

from pytest_mteval.cli.command import Command
from pytest_mteval.cli.main import COMMANDS, build_parser, main


def _paths(commands: tuple[Command, ...], above: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for command in commands:
        path = (*above, command.name)
        yield path
        yield from _paths(command.subcommands, path)


PATHS = list(_paths(COMMANDS))


def _styled(text: str | None) -> bool:
    """A help line: there, not a capitalised sentence (an acronym or a metavar may lead),
    no final period."""
    if not text or text.rstrip().endswith("."):
        return False
    first = text.split()[0]
    return not (first[0].isupper() and first[1:].islower())


def _parser_of(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        (choices,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = choices.choices[name]
    return parser


def test_the_command_tree_is_what_the_parser_offers() -> None:
    assert len(PATHS) == len(set(PATHS)) > 20
    top = {path[0] for path in PATHS}
    assert {"verify", "compare", "corpus", "review", "runs", "show", "steward"} <= top
    assert {("corpus", "encrypt"), ("review", "open"), ("audit-log", "verify")} <= set(PATHS)


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_command_has_help_in_the_house_style(path: tuple[str, ...]) -> None:
    parent = _parser_of(path[:-1])
    (choices,) = (a for a in parent._actions if isinstance(a, argparse._SubParsersAction))
    listed = {action.dest: action.help for action in choices._choices_actions}
    assert _styled(listed[path[-1]]), (path, listed[path[-1]])
    for action in _parser_of(path)._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        assert _styled(action.help), (path, action.option_strings or action.dest, action.help)


@pytest.mark.parametrize("path", [(), *PATHS], ids=lambda p: " ".join(p) or "mteval")
def test_every_help_prints_its_own_usage(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*path, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {' '.join(('mteval', *path))} ")
    command = _parser_of(path)
    assert command.description
    assert command.description.split()[0] in out


def test_a_group_without_its_subcommand_names_what_is_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["review"])
    assert exited.value.code == 2
    assert "required: COMMAND" in capsys.readouterr().err


def test_the_entry_point_and_the_module_run_the_same_main() -> None:
    (script,) = importlib.metadata.entry_points(group="console_scripts", name="mteval")
    assert script.load() is main
    shown = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "corpus", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0
    assert shown.stdout.startswith("usage: mteval corpus ")


def test_a_command_is_either_a_leaf_or_a_group() -> None:
    with pytest.raises(ValueError, match="either run or subcommands"):
        Command("x", help="neither")
    with pytest.raises(ValueError, match="either run or subcommands"):
        Command(
            "x",
            help="both",
            run=lambda args: 0,
            subcommands=(Command("y", help="y", run=lambda args: 0),),
        )
