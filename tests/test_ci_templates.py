"""The CI templates' shell steps, run as copied in a scratch repository that is not a Python
package: a main-branch job, then a pull request's job against its baseline.

The steps are read from the YAML files, not restated here. What differs from a real runner:
PYTEST_MTEVAL is set to a copy of this checkout (a path, as the templates allow); pip runs
offline (PIP_NO_INDEX, PIP_NO_DEPS), the dependencies being this test's environment's, on the
fresh venv's path through a ``.pth`` file; the steps that download the baseline from the CI
service (``gh``, ``curl``) are left out and the main job's baseline is where they would put it;
bubblewrap's install step runs, and skips apt-get when ``bwrap`` is already present, as it does
on a runner that has it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO
from scratch_repo import IDENTITY_PY, method_json

from pytest_mteval.run.sandbox import sandbox_problem

pytestmark = pytest.mark.slow

TEMPLATES = REPO / "conftest_templates"
#: A checkout as a new user clones it: no build outputs, caches or earlier runs.
_SKIP = shutil.ignore_patterns(
    ".git", ".mteval", "build", "dist", "*.egg-info", "__pycache__", "tests", "benchmarks",
    ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", "mutants",
)  # fmt: skip
#: Steps that fetch the baseline from the CI service's API: left out (see the docstring).
_DOWNLOADS = re.compile(r"\bgh run\b|\bcurl\b")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("src") / "pytest-mteval"
    shutil.copytree(REPO, copy, ignore=_SKIP, symlinks=True)
    return copy


def fresh_venv(folder: Path) -> Path:
    """A venv without pytest-mteval, its dependencies reachable through a ``.pth`` file."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    paths = sysconfig.get_paths()
    ours = [paths["purelib"], paths["platlib"], *site.getsitepackages()]
    lines = list(dict.fromkeys(ours))  # a .pth path entry runs no .pth file found there
    Path(purelib, "_deps_of_the_test_env.pth").write_text("\n".join(lines) + "\n")
    for name, module in (("pip", "pip"), ("pytest", "pytest")):
        script = folder / "bin" / name
        script.write_text(
            f"#!{python}\nimport runpy\nrunpy.run_module({module!r}, run_name='__main__', "
            "alter_sys=True)\n"
        )
        script.chmod(0o755)
    return folder


def scratch_repository(root: Path) -> Path:
    """The templates' files and a method folder; pyproject.toml holds only pytest settings."""
    repo = root / "repo"
    repo.mkdir()
    shutil.copy(TEMPLATES / "pyproject-mteval.toml", repo / "pyproject.toml")
    shutil.copy(TEMPLATES / "conftest.py", repo / "conftest.py")
    (repo / "my-method").mkdir()
    method = method_json("my-method", "my_method:MyMethod")
    (repo / "my-method" / "method.json").write_text(json.dumps(method), encoding="utf-8")
    (repo / "my-method" / "my_method.py").write_text(IDENTITY_PY, encoding="utf-8")
    assert "[project]" not in (repo / "pyproject.toml").read_text(encoding="utf-8")
    return repo


def shell_env(venv: Path, checkout: Path, **extra: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))}
    environ.pop("OPENROUTER_API_KEY", None)
    environ.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{environ.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PIP_NO_INDEX="1",
        PIP_NO_DEPS="1",  # the dependencies are the test environment's (see the docstring)
        PIP_NO_BUILD_ISOLATION="0",  # pip's spelling of --no-build-isolation
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    environ.update(extra)
    return environ


def run_step(command: str, repo: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One ``run:`` or ``script:`` entry, with the shell options both services use."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
        cwd=repo, env=environ, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def installed_names(venv: Path) -> set[str]:
    """The distributions installed in the venv itself (not those reached through the .pth)."""
    python = venv / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run([python, "-c", where], capture_output=True, text=True, check=True)
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--path", purelib.stdout.strip(), "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return {row["name"].lower() for row in json.loads(listed.stdout)}


def check_card(repo: Path) -> dict[str, Any]:
    """The newest card of the repository, checked as a CI run's card must be."""
    cards = sorted((repo / ".mteval" / "runs").glob("*.json"))
    assert cards, "no run card"
    card = json.loads(cards[-1].read_text(encoding="utf-8"))
    assert card["method"]["name"] == "my-method"
    assert card["complete"] is True
    assert len(card["results"]) == 47  # shipped:eng-sna-tatoeba-dev, the template's corpus
    if sandbox_problem() is None:
        assert card["runner"]["sandbox"] == "netns"  # bubblewrap was used, no fallback
    return card


def github_steps(event: str) -> list[tuple[str, dict[str, str], str]]:
    """(name, env, command) of each shell step the workflow runs for ``event``."""
    workflow = yaml.safe_load((TEMPLATES / "github-actions-mteval.yml").read_text())
    job = workflow["jobs"]["mteval"]
    steps = []
    for step in job["steps"]:
        if "run" not in step:
            continue
        condition = str(step.get("if", ""))
        wanted = re.search(r"github\.event_name == '(\w+)'", condition)
        if wanted and wanted.group(1) != event:
            continue
        if _DOWNLOADS.search(step["run"]):
            continue
        env = {k: str(v) for k, v in step.get("env", {}).items() if "${{" not in str(v)}
        steps.append((step.get("name", step["run"][:40]), env, step["run"]))
    return steps


def test_the_github_workflow_runs_as_copied(checkout: Path, tmp_path: Path) -> None:
    venv = fresh_venv(tmp_path / "venv")
    repo = scratch_repository(tmp_path)
    summary = tmp_path / "summary.md"
    for event in ("push", "pull_request"):
        if event == "pull_request":  # what "Fetch the main branch's baseline" downloads
            assert (repo / ".mteval" / "baseline.json").is_file()
        for name, step_env, command in github_steps(event):
            environ = shell_env(
                venv, checkout, GITHUB_EVENT_NAME=event, GITHUB_STEP_SUMMARY=str(summary),
                **{**step_env, "PYTEST_MTEVAL": str(checkout)},
            )  # fmt: skip
            done = run_step(command, repo, environ)
            assert done.returncode == 0, f"{event}: {name}\n{done.stdout[-3000:]}{done.stderr}"
        check_card(repo)
    names = installed_names(venv)
    assert "pytest-mteval" in names
    assert "unknown" not in names  # the repository is not a package: nothing built from it
    assert "**gate PASSED" in summary.read_text(encoding="utf-8")  # the compare step ran
    assert_installed_copy(venv, repo)


def assert_installed_copy(venv: Path, repo: Path) -> None:
    """The venv imports the pytest-mteval that the install step put there, not this checkout."""
    found = subprocess.run(
        [venv / "bin" / "python", "-c", "import pytest_mteval; print(pytest_mteval.__file__)"],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert venv in Path(found).parents, found


def gitlab_job(name: str) -> tuple[list[str], list[str], dict[str, str]]:
    """(before_script and script, after_script, variables) of a job, ``extends`` resolved."""
    config = yaml.safe_load((TEMPLATES / "gitlab-ci-mteval.yml").read_text())
    job = config[name]
    base = config[job["extends"]] if "extends" in job else {}
    merged = {**base, **job}
    lines = [*merged.get("before_script", []), *merged["script"]]
    lines = [line for line in lines if not _DOWNLOADS.search(line)]
    return lines, merged.get("after_script", []), dict(merged.get("variables", {}))


def test_the_gitlab_jobs_run_as_copied(checkout: Path, tmp_path: Path) -> None:
    repo = scratch_repository(tmp_path)
    for job in ("mteval-main", "mteval-gate"):
        venv = fresh_venv(tmp_path / f"venv-{job}")  # each job starts from a fresh image
        script, after, variables = gitlab_job(job)
        environ = shell_env(venv, checkout, **{**variables, "PYTEST_MTEVAL": str(checkout)})
        done = run_step("\n".join(script), repo, environ)
        assert done.returncode == 0, f"{job}\n{done.stdout[-3000:]}{done.stderr}"
        if after:
            assert run_step("\n".join(after), repo, environ).returncode == 0
        check_card(repo)
        names = installed_names(venv)
        assert "pytest-mteval" in names
        assert "unknown" not in names
        assert_installed_copy(venv, repo)
    assert "**gate PASSED" in (repo / ".mteval" / "compare.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["github-actions-mteval.yml", "gitlab-ci-mteval.yml"])
def test_an_unset_install_source_stops_the_job_in_one_line(name: str, tmp_path: Path) -> None:
    """The templates' placeholder URL is refused before pip tries it."""
    text = (TEMPLATES / name).read_text()
    (placeholder,) = set(re.findall(r'PYTEST_MTEVAL: "([^"]+)"', text))
    assert "OWNER" in placeholder
    if name.startswith("github"):
        command = next(c for n, _e, c in github_steps("push") if "pip install" in c)
    else:
        command = next(line for line in gitlab_job("mteval-main")[0] if "OWNER" in line)
    environ = {**os.environ, "PYTEST_MTEVAL": placeholder}
    done = run_step(command, tmp_path, environ)
    assert done.returncode == 1
    assert done.stdout.strip().endswith("a git URL or a path to pytest-mteval")
    assert len(done.stdout.strip().splitlines()) == 1


def bubblewrap_step(name: str) -> str:
    if name.startswith("github"):
        return next(c for _n, _e, c in github_steps("push") if "bubblewrap" in c)
    return next(line for line in gitlab_job("mteval-main")[0] if "bubblewrap" in line)


@pytest.mark.parametrize("name", ["github-actions-mteval.yml", "gitlab-ci-mteval.yml"])
def test_without_bwrap_the_job_installs_bubblewrap_from_apt(name: str, tmp_path: Path) -> None:
    """On a runner without bwrap, the step asks apt for it (here a stand-in apt-get that
    records its arguments; sudo passes through)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    (bin_dir / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    environ = {"PATH": str(bin_dir), "HOME": str(tmp_path)}  # no bwrap on this PATH
    done = subprocess.run(
        ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", bubblewrap_step(name)],
        cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "update -q"
    assert calls[1] == "install -y -q bubblewrap"
