"""The README's marked commands as CI and a reader get them: ``.ci/run`` reads its test command
from the block (not from a line's position in the prose), and the block holds the two
commands the README promises: the main job on a shipped corpus and method, then the tests."""

from __future__ import annotations

import shlex
import subprocess

from conftest import REPO
from marked_block import marked_block

#: The project's test command, as CI has always run it.
TEST_COMMAND = "pip install -e '.[dev]' && pytest -n 2"


def ci_test_command() -> str:
    """What ``.ci/run`` would run as the README's test command, by its own line, in bash."""
    line = next(
        line
        for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.startswith("test_command=")
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'{line}\nprintf %s "$test_command"'],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def test_ci_runs_the_second_command_of_the_readme_block():
    commands = marked_block(REPO / "README.md", "commands")
    assert len(commands) == 2, commands
    assert ci_test_command() == commands[1] == TEST_COMMAND


def test_the_first_command_runs_a_shipped_method_on_a_shipped_corpus():
    install, _, run = marked_block(REPO / "README.md", "commands")[0].partition(" && ")
    assert install == "pip install -e ."
    words = shlex.split(run)
    assert words[0] == "pytest"
    options = dict(word.split("=", 1) for word in words[1:])
    assert set(options) == {"--mteval-corpus", "--mteval-method"}
    assert (REPO / options["--mteval-corpus"]).is_file()
    assert (REPO / "methods" / options["--mteval-method"] / "method.json").is_file()


def test_the_gating_page_marks_its_ci_jobs():
    jobs = marked_block(REPO / "docs" / "gating.md", "ci-commands")
    assert [shlex.split(job)[:2] for job in jobs] == [
        ["pytest", "--mteval-update-baseline"],
        ["pytest", "--junitxml=.mteval/junit.xml"],
        ["mteval", "compare"],
        ["mteval", "runs"],
    ]
