"""The option table (``pytest_mteval/option_catalog.py``) is the one place an option is written:
pytest's options and ini keys, the run settings' defaults, the ``mteval`` subcommands that
share an option and docs/options.md all agree with it."""

from __future__ import annotations

import importlib.util
import json
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
from pytest_mteval.run.run_settings import Settings

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


#: Run in a fresh interpreter: the table's defaults changed, the modules that take one of them
#: re-read, and what they then give printed, so that a literal copy of a default shows.
_CHANGED_DEFAULTS = """
import dataclasses, importlib, json, sys
from pathlib import Path
from pytest_mteval import option_catalog

changed = json.loads(sys.argv[1])
table_spec = option_catalog.spec
option_catalog.spec = lambda name: (
    dataclasses.replace(table_spec(name), default=changed[name]) if name in changed
    else table_spec(name)
)
from pytest_mteval.llm import chat_settings as chat
from pytest_mteval.methods import harness_plugin, protocol
from pytest_mteval.run import run_settings as run
from pytest_mteval.sweep import plan, reproduction
for module in (protocol, harness_plugin, chat, run, plan, reproduction):
    importlib.reload(module)

folder = Path(sys.argv[2])
(folder / "sweep.toml").write_text('[sweep]\\ncorpus = "c.json"\\nmethod = "identity"\\n')
(folder / "c.json").write_text("{}")
card = {"dataset": {}, "method": {"name": "identity"}, "temperature": 0, "condition": "c"}
config = protocol.RunConfig()
harness = harness_plugin.HarnessRunConfig(ours=config)
handed = harness_plugin.harness_config(config)
chat_settings = chat.ChatSettings(model="m")
settings = run.Settings(corpus=None, method=None)
args = reproduction.reproduction_args(card, "card", folder / "c.json")
size = next(arg for arg in args if arg.startswith("--mteval-batch-size=")).partition("=")[2]
print(json.dumps({
    "batch-size": [config.batch_size, harness.batch_size, handed.batch_size,
                   settings.batch_size, int(size)],
    "concurrency": [config.concurrency, harness.concurrency, handed.concurrency,
                    chat_settings.concurrency, settings.concurrency,
                    plan.load_plan(folder / "sweep.toml", folder).concurrency],
    "temperature": [config.temperature, harness.temperature, handed.temperature,
                    chat_settings.temperature, settings.temperature],
    "source-field": [harness.source_field, settings.source_field],
}))
"""


def test_what_an_unset_option_gives_is_read_from_the_table_wherever_it_is_used(tmp_path: Path):
    """RunConfig (public: users' methods and tests build it), the harness plugins' RunConfig,
    the chat client's settings, the run settings, a sweep's concurrency and a reproduction's
    batch size follow the table; changed there, none keeps a copy of the old default."""
    changed = {"batch-size": "7", "concurrency": "3", "temperature": "0.5", "source-field": "text"}
    assert all(spec(name).default != value for name, value in changed.items())
    done = subprocess.run(
        [sys.executable, "-c", _CHANGED_DEFAULTS, json.dumps(changed), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    given = json.loads(done.stdout)
    assert given["batch-size"] == [7] * 5
    assert given["concurrency"] == [3] * 6
    assert given["temperature"] == [0.5] * 5
    # a harness plugin's entries hold the source as "source" whichever field the corpus reads
    assert given["source-field"] == ["source", "text"]
