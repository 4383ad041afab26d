"""docs/options.md says it lists every option: each one ``pytest --help`` shows is on it, and
it names none the plugin does not have."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO

OPTION = re.compile(r"--mteval-[a-z][a-z-]*[a-z]")


def test_the_options_page_lists_every_option_of_pytest_help(tmp_path):
    shown = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:randomly"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    declared = set(OPTION.findall(shown))
    assert len(declared) > 40, shown[-2000:]
    listed = set(OPTION.findall((REPO / "docs" / "options.md").read_text(encoding="utf-8")))
    assert declared == listed
