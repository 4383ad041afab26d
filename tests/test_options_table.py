"""The option table (``pytest_mteval/option_catalog.py``) is the one place an option is written:
pytest's options and ini keys, the run settings' defaults, the ``mteval`` subcommands that
share an option and docs/options.md all agree with it."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_mteval.cli.main import build_parser, main
from pytest_mteval.cli.shared_options import SHARED
from pytest_mteval.option_catalog import OPTIONS, float_default, spec
from pytest_mteval.plugin.options import read_settings
from pytest_mteval.run.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
WIDE = "400"  # columns: every help on one line, nothing wrapped at a hyphen


def _doc_script() -> ModuleType:
    found = importlib.util.spec_from_file_location(
        "gen_options_doc", ROOT / "scripts" / "gen_options_doc.py"
    )
    assert found is not None
    assert found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def test_docs_options_page_is_generated_from_the_table():
    page = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    assert page == _doc_script().render(), (
        "docs/options.md is stale: python scripts/gen_options_doc.py"
    )
    assert page.startswith("# Options\n")
    for option in OPTIONS:
        assert f"`{option.flag}" in page
        assert f"`{option.dest}`" in page


def _help_of(text: str, flag: str) -> str:
    """The help ``--help`` shows for ``flag``: on its line, or the next when the flag is long."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        match = re.match(rf"\s+{re.escape(flag)}(?:[= ]\S+)?(?:\s{{2,}}(.*))?$", line)
        if match:
            return " ".join((match.group(1) or lines[number + 1]).split())
    raise AssertionError(f"{flag} not in the help")


def _pytest_help(tmp_path: Path) -> str:
    env = {**os.environ, "COLUMNS": WIDE}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _mteval_help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    return capsys.readouterr().out


def test_a_shared_option_shows_the_same_help_in_pytest_and_in_its_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("COLUMNS", WIDE)
    pytest_help = _pytest_help(tmp_path)
    build_parser()
    assert SHARED, "no subcommand shares a plugin option"
    for command, names in SHARED.items():
        command_help = _mteval_help(command, capsys)
        for name in names:
            option = spec(name)
            in_pytest = _help_of(pytest_help, option.flag)
            in_command = _help_of(command_help, f"--{name}")
            assert in_pytest == option.help_text()
            # the same help; a subcommand that falls back to something else says so, and then
            # the plugin's default
            fallback = f"else {option.shown_default or 'none'})"
            assert in_command == in_pytest or (
                in_command.startswith(option.help) and in_command.endswith(fallback)
            ), (command, name, in_command, in_pytest)


def test_every_option_is_an_ini_key_whose_default_is_the_tables(pytester: pytest.Pytester):
    config = pytester.parseconfig()
    for option in OPTIONS:
        default = {"list": [], "flag": False}.get(option.kind, option.default)
        assert config.getini(option.dest) == default, option.name
        assert config.getoption(option.dest) in (None, [], False), option.name


def test_the_settings_of_a_run_without_options_are_the_settings_defaults(pytester: pytest.Pytester):
    """The defaults reach the run the same way from pytest's ini keys and from ``Settings``."""
    config = pytester.parseconfig()
    read = read_settings(config)
    assert read == Settings(corpus=None, method=None, method_base=read.method_base)


def test_a_shared_option_takes_the_plugins_default_unless_its_subcommand_falls_back():
    parser = build_parser()
    report = parser.parse_args(["report", "card.json", "--html", "out/"])
    assert report.entry_max_drop == float_default("entry-max-drop") == 10.0
    compare = parser.parse_args(["compare", "a.json", "b.json"])
    assert (compare.max_drop, compare.significance, compare.gate) == (None, None, None)
    typed = parser.parse_args(["compare", "a.json", "b.json", "--max-drop=0.5", "--gate=chrf:1"])
    assert (typed.max_drop, typed.gate) == (0.5, ["chrf:1"])
