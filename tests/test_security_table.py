"""docs/security.md's evidence table matches the code: every `mteval ...` command it names
exists and has every option the same cell names, and every signing domain it quotes is one the
code signs under (issue 41, item 7)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from conftest import REPO

from pytest_mteval.cards import signing, steward
from pytest_mteval.cards.verification_tier import VALIDATION_DOMAIN
from pytest_mteval.cli.main import main
from pytest_mteval.option_catalog import OPTIONS

PAGE = REPO / "docs" / "security.md"
HEADING = "## Evidence: who writes it, who can forge it, what verifies it"
#: Commands whose first word is a group of subcommands.
GROUPS = {"review", "audit-log", "bundle", "steward"}


def table_rows() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(HEADING) :]
    section = section[: section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    cells = [[c.strip() for c in row.strip("|").split(" | ")] for row in rows]
    assert cells[0] == [
        "Evidence",
        "Written by",
        "Who can forge it",
        "What verifies it",
        "Under which key",
    ]
    return cells[2:]


def help_text(command: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0, command
    return out.getvalue()


def test_the_table_names_each_kind_of_evidence_once():
    names = [row[0] for row in table_rows()]
    assert len(names) == len(set(names)) >= 12


def test_every_command_and_option_the_table_names_exists():
    checked = 0
    plugin_options = {f"--mteval-{spec.name}" for spec in OPTIONS}
    for row in table_rows():
        for cell in row:
            for fragment in re.findall(r"`(mteval [^`]+)`", cell):
                words = fragment.split()[1:]
                command = [w for w in words if re.fullmatch(r"[a-z][a-z-]*", w)]
                options = [w for w in words if w.startswith("--")]
                page = help_text(command[:2] if command[0] in GROUPS else command[:1])
                for option in options:
                    assert option in page, (fragment, option)
                    checked += 1
            for option in re.findall(r"`(--mteval-[a-z-]+)`", cell):
                assert option in plugin_options, option
                checked += 1
    assert checked >= 12


def test_every_domain_the_table_quotes_is_one_the_code_signs_under():
    quoted = {
        d for row in table_rows() for d in re.findall(r"domain `(pytest-mteval [^`]+)`", row[0])
    }
    code = {signing.DOMAIN, VALIDATION_DOMAIN, steward.DOMAIN}
    assert {d.encode() + b"\n" for d in quoted} == code


def test_the_key_options_of_the_verdict_commands_are_on_them():
    assert "--governance-key" in help_text(["leaderboard"])
    assert "--maintainer-key" in help_text(["leaderboard"])
    assert "--governance-key" in help_text(["verify"])
    assert "--sign-key" in help_text(["review", "ingest"])
    for command in (["review", "open"], ["review", "ingest"]):
        page = help_text(command)
        assert "--maintainer-key" in page
        assert "--governance-key" in page
