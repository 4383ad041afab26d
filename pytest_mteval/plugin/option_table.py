"""The plugin's command-line options and ini keys, declared from the one table
(``option_catalog.py``): importing this costs nothing beyond pytest and that table, so a
session that never names a corpus pays only for this."""

from __future__ import annotations

import pytest

from pytest_mteval.option_catalog import OPTIONS
from pytest_mteval.option_spec import add_option


def add_options(parser: pytest.Parser) -> None:
    """Each option on the command line and as an ini key of the same name (its ``dest``);
    a list option's ini key is space-separated."""
    group = parser.getgroup("mteval", "machine-translation evaluation (pytest-mteval)")
    for option in OPTIONS:
        add_option(group.addoption, option)
        help_text = option.help_text()
        if option.kind == "list":
            parser.addini(option.dest, help_text, type="args", default=[])
        elif option.kind == "flag":
            parser.addini(option.dest, help_text, type="bool", default=False)
        else:
            parser.addini(option.dest, help_text, type="string", default=option.default)
