"""``mteval schema run-card``: the run card's JSON Schema, for tools that check cards."""

from __future__ import annotations

import argparse
import json

from pytest_mteval.cards import runcard
from pytest_mteval.cli.command import Command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("which", choices=["run-card"], help="the schema to print")


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(runcard.json_schema(), indent=2, ensure_ascii=False))
    return 0


SCHEMA = Command("schema", help="print a JSON Schema", add_arguments=_arguments, run=_schema)
