"""A new user's first week (issue 27), each step run as the user runs it: a subprocess in a
scratch repository outside the checkout (tests/scratch_repo.py). docs/first-hour.md walks the
same steps; each test here names the step it keeps true."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from conftest import REPO, envelope
from scratch_repo import BOOM_PY, IDENTITY_PY, Scratch, method_json, shipped_entries

from pytest_mteval.shipped_corpora import shipped_corpus

SNA = "--mteval-corpus=shipped:eng-sna-tatoeba-dev"  # 47 entries: batches of 25 and 22
GPT55_REPORT = "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    repo = Scratch(tmp_path_factory.mktemp("first-week"))
    repo.write("boom/method.json", method_json("boom", "boom:Boom"))
    repo.write("boom/boom.py", BOOM_PY)
    return repo


def test_step_2_a_crashing_method_shows_its_traceback_once(scratch: Scratch) -> None:
    done = scratch.run(f"pytest {SNA} --mteval-method=boom")
    out = done.stdout
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, out[-2000:] + done.stderr[-2000:]
    # one root cause, one report (issue 44: it was one per batch, 331 lines in all)
    assert out.count("Traceback (most recent call last):") == 1
    assert 'boom/boom.py", line 7, in load_model' in out
    assert "ValueError: model file missing: model.bin" in out
    assert "pytest_mteval" not in out.split("FAILURES", 1)[1].split("short test summary")[0]
    assert "the same error failed 46 more entries" in out  # then one line per entry
    assert out.count("the same error as entry") == 0
    assert "all 25 entries of batch 0 failed with it" in out


@pytest.mark.parametrize("runner", ["process", "inprocess"])
def test_step_2_tb_short_and_no_in_both_runners(scratch: Scratch, runner: str) -> None:
    short = scratch.run(f"pytest {SNA} --mteval-method=boom --tb=short --mteval-runner={runner}")
    assert "Traceback (most recent call last)" not in short.stdout
    assert short.stdout.count('boom/boom.py", line 7, in load_model') == 1
    assert "line 3, in translate" not in short.stdout  # short: the innermost frame only
    long = scratch.run(f"pytest {SNA} --mteval-method=boom --tb=long --mteval-runner={runner}")
    assert long.stdout.count('boom/boom.py", line 3, in translate') == 1
    assert "/pytest_mteval/" not in long.stdout.split("FAILURES", 1)[1].split("=====")[0]
    quiet = scratch.run(f"pytest {SNA} --mteval-method=boom --tb=no --mteval-runner={runner}")
    assert "boom.py" not in quiet.stdout


GATE_INI = """[tool.pytest.ini_options]
mteval_baseline = ".mteval/baseline.json"
mteval_fail_under = "0.10"
"""


def test_step_5_an_ad_hoc_run_in_a_gated_repository(scratch: Scratch) -> None:
    gated = scratch.root / "gated"
    scratch.write("gated/pyproject.toml", GATE_INI)
    first = scratch.run(f"pytest {SNA} --mteval-method=identity --mteval-update-baseline", gated)
    assert first.returncode == 0, first.stdout[-2000:]
    assert (gated / ".mteval" / "baseline.json").is_file()
    other = "--mteval-corpus=shipped:eng-sme-tatoeba-dev --mteval-method=identity"
    refused = scratch.run(f"pytest {other}", gated)
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR
    assert "was not made on this dataset" in refused.stderr
    assert "or --mteval-baseline=none for a run without the configured gate" in refused.stderr
    for value in ("none", "None", ""):
        adhoc = scratch.run(f"pytest {other} --mteval-baseline={value}", gated)
        assert adhoc.returncode == 0, adhoc.stdout[-2000:] + adhoc.stderr[-2000:]
        assert "gate             off (--mteval-baseline=none" in adhoc.stdout
        assert "mteval gate" not in adhoc.stdout  # no gate item, no gate section
    # a gate given on the command line still applies
    floor = scratch.run(f"pytest {other} --mteval-baseline=none --mteval-fail-under=0.99", gated)
    assert floor.returncode == pytest.ExitCode.TESTS_FAILED
    assert "gate      FAILED" in floor.stdout
    wrong = scratch.run(f"pytest {other} --mteval-baseline=none --mteval-update-baseline", gated)
    assert "--mteval-update-baseline needs a baseline path, not 'none'" in wrong.stderr


def test_step_6_method_json_lists_every_problem_at_once(scratch: Scratch) -> None:
    scratch.write("half/method.json", {"name": "half", "supported_pairs": []})
    scratch.write("half/half.py", "class Half:\n    pass\n")
    done = scratch.run(f"pytest {SNA} --mteval-method=half")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert "half/method.json: 6 problems: " in error
    for field in ("method_id", "class", "entry_point", "dependency_class", "dependencies"):
        assert f"field {field!r}: required field is missing" in error
    assert "field 'supported_pairs': List should have at least 1 item" in error
    # the complete minimal method.json the message shows works as written
    shown = error.split("A complete minimal method.json: ", 1)[1]
    scratch.write("minimal/method.json", shown.replace("my_method:MyMethod", "minimal:MyMethod"))
    scratch.write("minimal/minimal.py", IDENTITY_PY)
    works = scratch.run(f"pytest {SNA} --mteval-method=minimal")
    assert works.returncode == 0, works.stdout[-2000:] + works.stderr[-2000:]
    assert "47 passed" in works.stdout


def test_step_6_corpus_import_lists_every_missing_field_at_once(scratch: Scratch) -> None:
    entries = shipped_entries("eng-sna-tatoeba-dev")[:10]  # Tatoeba's human translations
    rows = ["source,reference"] + [f'"{e["source"]}","{e["reference"]}"' for e in entries]
    scratch.write("sheet.csv", "\n".join(rows) + "\n")
    refused = scratch.run("mteval corpus import sheet.csv -o mine.json")
    assert refused.returncode == 2
    assert (
        "the envelope needs 'id', 'source_language', 'target_language', 'license'" in refused.stdout
    )
    done = scratch.run(
        "mteval corpus import sheet.csv -o mine.json --id eng-sna-mine --source-language en "
        "--target-language sn --license CC-BY-2.0-FR"
    )
    assert done.returncode == 0, done.stderr
    run = scratch.run("pytest --mteval-corpus=mine.json --mteval-method=identity")
    assert "10 passed" in run.stdout


SWEEP_INI = """[tool.pytest.ini_options]
mteval_baseline = ".mteval/baseline.json"
mteval_fail_under = "0.99"
# the shipped crk corpus's resources under an editable install need main's 53cb6b9 in the
# sandbox; this step is about the sweep, not the sandbox
mteval_sandbox = "none"
"""


def test_step_1_the_example_sweep_copied_into_a_gated_repository(scratch: Scratch) -> None:
    repo = scratch.root / "sweeping"
    scratch.write("sweeping/pyproject.toml", SWEEP_INI)  # a gate identity cannot pass
    scratch.write("sweeping/sweeps/sweep.toml", (REPO / "examples" / "sweep.toml").read_text())
    done = scratch.run("pytest --mteval-sweep=sweeps/sweep.toml", repo)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    for label in ("identity_b25", "identity_b100", "dictionary_b25", "dictionary_b100"):
        assert f"  passed   {label}  (exit 0)" in done.stdout  # the ini's gate is not inherited


def test_step_1_a_sweep_that_fails_says_why(scratch: Scratch) -> None:
    repo = scratch.root / "sweeping"
    scratch.write("sweeping/pyproject.toml", SWEEP_INI)
    entries = shipped_entries("eng-sna-tatoeba-dev")[:5]
    scratch.write(
        "sweeping/data/five.json",
        envelope(
            entries,
            id="five",
            source_language="en",
            target_language="sn",
            language_pair="EN→SN",
            license="LicenseRef-CC-BY-2.0-FR",
        ),
    )
    scratch.write(
        "sweeping/sweeps/mine.toml",
        '[sweep]\ncorpus = ["../data/five.json", "../data/gone.json"]\nmethod = "identity"\n',
    )
    done = scratch.run("pytest --mteval-sweep=sweeps/mine.toml", repo)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    gone = repo / "data" / "gone.json"
    log = repo / ".mteval" / "sweeps" / "mine" / "logs" / "gone.estimate.log"
    assert f"run gone cannot start (exit 4): ERROR: {gone}: cannot read corpus file" in done.stdout
    assert f"(log {log})" in done.stdout
    # paths relative to the sweep file; a baseline only when the sweep names one
    scratch.write(
        "sweeping/sweeps/gated.toml",
        '[sweep]\ncorpus = "../data/five.json"\nmethod = "identity"\n'
        'baseline = "../.mteval/baseline.json"\n',
    )
    gated = scratch.run("pytest --mteval-sweep=sweeps/gated.toml", repo)
    assert gated.returncode == pytest.ExitCode.TESTS_FAILED, gated.stdout[-3000:]
    assert "  failed   run  (exit 1): 1 failed, 5 passed" in gated.stdout
    assert "FAILED mteval::gate - gate      FAILED: composite" in gated.stdout


X_PY = """class X:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": "x", "error": None} for e in entries]
"""


def test_step_3_one_selected_entry_is_not_a_significance_claim(scratch: Scratch) -> None:
    repo = scratch.root / "one-entry"
    scratch.write("one-entry/x/method.json", method_json("x", "x:X"))
    scratch.write("one-entry/x/x.py", X_PY)
    made = scratch.run(
        f"pytest {SNA} --mteval-method=x --mteval-baseline=b.json --mteval-update-baseline", repo
    )
    assert made.returncode == 0, made.stdout[-2000:]
    one = scratch.run(
        f"pytest {SNA} --mteval-method=identity --mteval-baseline=b.json -k tatoeba_1434", repo
    )
    gate = one.stdout.split("mteval gate", 1)[1]
    assert "compared  1 common entries" in gate
    assert "p < 0.05" not in gate
    assert "FAIL: dropped 0.05346 > 0 (significance not testable)" in gate
    assert (
        "significance not testable over 1 common entries (a paired bootstrap needs at least 10)"
        in gate
    )


def test_step_7_shipped_ids_read_well_and_rf_lines_keep_the_reason(scratch: Scratch) -> None:
    done = scratch.run(f"pytest {SNA} --mteval-method=boom -rf", COLUMNS="120")
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, failed  # one root cause, one line with its count (issue 44)
    assert failed[0].startswith("FAILED shipped:eng-sna-tatoeba-dev::batch-0000::"), failed
    assert " - method raised ValueError: model file missing" in failed[0], failed
    assert failed[0].endswith(" (and 46 more entries with the same error)"), failed
    session = done.stdout.split("warnings summary", 1)[0]
    assert "site-packages" not in session
    assert "../" not in session


def test_step_7_two_runs_of_one_method_are_told_apart_on_the_leaderboard(
    scratch: Scratch,
) -> None:
    repo = scratch.root / "board"
    repo.mkdir()
    # a real LLM's outputs replayed (identity copies its sources: a degenerate run, not ranked)
    outputs = REPO / "tests" / "data" / "upstream-runs" / GPT55_REPORT
    for _ in range(2):
        run = scratch.run(
            f"pytest {SNA} --mteval-method=replay --mteval-method-arg=predictions={outputs} -q",
            repo,
        )
        assert run.returncode == 0
    board = scratch.run("mteval leaderboard .mteval/runs", repo)
    assert board.returncode == 0, board.stdout + board.stderr
    names = [
        line.split("|")[2].strip()
        for line in board.stdout.splitlines()
        if "| method:replay |" in line
    ]
    assert len(names) == 2
    assert len(set(names)) == 2, names  # each with its run's time (or id, the same minute)
    assert all(name.startswith("replay \\[") for name in names), names


UPPER_PY = """class Upper:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"].upper(), "error": None} for e in entries]
"""


def test_step_8_compare_and_pytest_apply_the_same_ini_gate(scratch: Scratch) -> None:
    repo = scratch.root / "tools"
    scratch.write(
        "tools/pyproject.toml",
        '[tool.pytest.ini_options]\nmteval_baseline = ".mteval/baseline.json"\n'
        'mteval_gate = "chrf_plus_plus:0.5"\n',
    )
    scratch.write("tools/x/method.json", method_json("x", "x:X"))
    scratch.write("tools/x/x.py", X_PY)
    made = scratch.run(f"pytest {SNA} --mteval-method=identity --mteval-update-baseline", repo)
    assert made.returncode == 0, made.stdout[-2000:]
    pr = scratch.run(f"pytest {SNA} --mteval-method=x", repo)
    assert "gate      FAILED: chrf_plus_plus\n" in pr.stdout
    compared = scratch.run("mteval compare .mteval/baseline.json latest", repo)
    assert compared.returncode == 1, compared.stdout
    assert compared.stdout.splitlines()[-1] == "gate FAILED: chrf_plus_plus"
    loose = scratch.run(
        "mteval compare .mteval/baseline.json latest --gate chrf_plus_plus:99", repo
    )
    assert loose.returncode == 0, loose.stdout  # an option given overrides the recorded gate


def test_step_8_runs_marks_a_run_stopped_by_x_as_incomplete(scratch: Scratch) -> None:
    repo = scratch.root / "stopped"
    repo.mkdir()
    scratch.write("stopped/boom/method.json", method_json("boom", "boom:Boom"))
    scratch.write("stopped/boom/boom.py", BOOM_PY)
    stopped = scratch.run(f"pytest {SNA} --mteval-method=boom -x", repo)
    assert "1 failed" in stopped.stdout.splitlines()[-1]
    listed = scratch.run("mteval runs", repo)
    lines = listed.stdout.splitlines()
    assert lines[:3] == [
        "No run is ranked: each is listed under Not ranked with the reason.",
        "",
        "Not ranked:",
    ]
    (row,) = lines[4:]
    assert row.endswith("  incomplete  incomplete run: 46 entries not run: stopped by -x"), row
    (line,) = (repo / ".mteval" / "runs" / "index.jsonl").read_text().splitlines()
    indexed = json.loads(line)
    assert indexed["complete"] is False
    assert indexed["incomplete_reason"] == "46 entries not run: stopped by -x"


def test_step_8_flags_say_what_happened(scratch: Scratch) -> None:
    repo = scratch.root / "flags"
    scratch.write("flags/upper/method.json", method_json("upper", "upper:Upper"))
    scratch.write("flags/upper/upper.py", UPPER_PY)
    upper = scratch.run(f"pytest {SNA} --mteval-method=upper", repo)
    assert (
        "source_copied: 47 of 47 answered entries return their source unchanged or changed "
        "only in case or spacing (47 of them)" in upper.stdout
    )
    oracle = scratch.run(
        "pytest --mteval-corpus=shipped:eng-crk-morphodict-vocab --mteval-method=dictionary "
        "--mteval-sandbox=none",  # main's 53cb6b9: the crk resources under an editable install
        repo,
    )
    assert (
        "FLAG              oracle_method: method 'dictionary' is an oracle on "
        "morphodict-eng-crk-vocab: its data comes from this corpus" in oracle.stdout
    )


def test_step_4_the_ci_templates_work_as_copied_with_the_identity_floor(scratch: Scratch) -> None:
    repo = scratch.root / "ci"
    templates = REPO / "conftest_templates"
    scratch.write("ci/pyproject.toml", (templates / "pyproject-mteval.toml").read_text())
    scratch.write("ci/conftest.py", (templates / "conftest.py").read_text())
    # the template's method "my-method", here a folder (an installed name works the same)
    scratch.write("ci/my-method/method.json", method_json("my-method", "my_method:MyMethod"))
    scratch.write("ci/my-method/my_method.py", IDENTITY_PY)  # the identity floor
    main_job = "pytest --mteval-update-baseline --junitxml=.mteval/junit.xml"
    first = scratch.run(main_job, repo)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
    assert "48 passed" in first.stdout.splitlines()[-1]  # 47 entries and the gate
    assert (repo / ".mteval" / "baseline.json").is_file()
    pr = scratch.run("pytest --junitxml=.mteval/junit.xml", repo)
    assert pr.returncode == 0, pr.stdout[-3000:]
    for name in ("github-actions-mteval.yml", "gitlab-ci-mteval.yml"):
        workflow = (templates / name).read_text()
        assert 'pip install "$PYTEST_MTEVAL" .' in workflow
        assert "git+https://" in workflow
        assert "pip wheel --no-deps ." in workflow
        assert "pip install pytest-mteval ." not in workflow


def test_step_9_the_summary_says_what_its_abbreviations_mean_and_what_next(
    scratch: Scratch,
) -> None:
    repo = scratch.root / "summary"
    repo.mkdir()
    done = scratch.run(f"pytest {SNA} --mteval-method=identity", repo)
    summary = done.stdout.split("= mteval =", 1)[1]
    assert "composite (B)    0.162" in summary
    assert (
        "legend           composite: 0-1, higher is better, a weighted mean of the metrics "
        "(profile B: no morphological analyzer (FST) for the target language; weights "
        "semantic 0.25, chrF++ 0.25, equivalent match 0.15, exact match 0.1, code-switching 0.1, "
        "terminology adherence 0.05, hallucination 0.05, orthographic accuracy 0.05); in 'by' "
        "rows n = entries, chrF = chrF++, c = composite"
    ) in summary
    assert (
        "next             keep this run as the baseline to gate later runs against: "
        "--mteval-baseline=.mteval/baseline.json --mteval-update-baseline"
    ) in summary
    failing = scratch.run(f"pytest {SNA} --mteval-method=boom", scratch.root)
    assert (
        "next             47 entries failed: their reports are above; rerun only them with --lf"
        in failing.stdout
    )


def test_step_9_the_plugin_does_not_bring_pytest_asyncio(scratch: Scratch) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.startswith("pytest-asyncio")]
    assert [d for d in project["optional-dependencies"]["dev"] if d.startswith("pytest-asyncio")]
    # a fresh repository without it: the plugin runs, nothing asks to configure asyncio
    done = scratch.run(f"pytest {SNA} --mteval-method=identity -p no:asyncio", scratch.root)
    assert done.returncode == 0
    assert "asyncio" not in done.stdout + done.stderr


def test_step_9_from_the_clone_the_header_counts_the_corpus_only(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    skip = (".git", ".mteval", "build", "dist", "*.egg-info", "__pycache__", ".venv", "mutants",
            ".mypy_cache", ".ruff_cache", ".pytest_cache", "benchmarks")  # fmt: skip
    shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns(*skip), symlinks=True)
    scratch = Scratch(clone)
    # --mteval-sandbox=none: the package this interpreter has is the editable install of the
    # checkout, which a sandboxed runner in a copy of it does not find (a wheel it would)
    done = scratch.run(
        "pytest --mteval-corpus=corpora/eng-sna-tatoeba-dev.json --mteval-method=identity "
        "--mteval-sandbox=none"
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert "collected 47 items\n" in done.stdout
    assert "deselected" not in done.stdout
    named = scratch.run(
        "pytest --mteval-corpus=corpora/eng-sna-tatoeba-dev.json --mteval-method=identity "
        "--mteval-sandbox=none tests/test_error_hierarchy.py"
    )
    assert "deselected" not in named.stdout  # named paths run as well
    assert re.search(r"collected (\d+) items", named.stdout).group(1) != "47"


def test_step_9_the_html_report_leads_with_the_gate_and_fits_1400px(scratch: Scratch) -> None:
    from browser import chromium  # tests/browser.py: skips without Chromium

    repo = scratch.root / "page"
    flores = json.loads(shipped_corpus("eng-fra-flores-devtest").read_text(encoding="utf-8"))
    flores["entries"] = flores["entries"][:60]  # FLORES' long sentences, as a user's corpus
    scratch.write("page/flores60.json", flores)
    scratch.write("page/x/method.json", method_json("x", "x:X"))
    scratch.write("page/x/x.py", X_PY)
    corpus = "--mteval-corpus=flores60.json --mteval-baseline=b.json"
    made = scratch.run(f"pytest {corpus} --mteval-method=x --mteval-update-baseline", repo)
    assert made.returncode == 0, made.stdout[-2000:]
    scratch.run(f"pytest {corpus} --mteval-method=identity --mteval-html=report.html", repo)
    with chromium() as browser:
        browser.get((repo / "report.html").as_uri())  # the window is 1400 px wide
        first = browser.execute_script("return document.querySelector('h1 ~ section, h1 ~ h2')")
        assert first.get_attribute("id") == "gate"
        assert first.find_element("css selector", "h2").text in ("Gate: PASSED", "Gate: FAILED")
        row = first.find_element("css selector", "tr[data-gate-metric=composite]")
        assert re.fullmatch(r"composite [\d.]+ [\d.]+ [+-]\d\.\d{4} .+", row.text), row.text
        widths = browser.execute_script(
            "const t = document.querySelector('table.entries');"
            "return [window.innerWidth, document.documentElement.scrollWidth,"
            " t.scrollWidth, t.parentElement.clientWidth]"
        )
        window, page, table, room = widths
        assert window == 1400
        assert page <= window, widths
        assert table <= room, widths  # the entries table fits, no sideways scrolling


def _page_steps() -> list[tuple[str, list[str], dict[str, str]]]:
    """docs/first-hour.md as (section heading, its commands, its fenced blocks by language)."""
    steps: list[tuple[str, list[str], dict[str, str]]] = []
    fence: str | None = None
    for line in (REPO / "docs" / "first-hour.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if fence is None:
                fence = line[3:].strip()
                steps[-1][2][fence] = ""
            else:
                fence = None
        elif fence is not None:
            steps[-1][2][fence] += line + "\n"
        elif line.startswith("## "):
            steps.append((line[3:], [], {}))
        elif line.startswith("    ") and line.split()[0] in ("pytest", "mteval") and steps:
            steps[-1][1].append(line.strip())
    return steps


def test_the_first_hour_page_as_written(tmp_path: Path) -> None:
    """Every command of docs/first-hour.md, in its order, in one fresh repository, with the
    files its sections say to write (their code blocks, the example sweep, the templates)."""
    repo = Scratch(tmp_path)
    templates = REPO / "conftest_templates"
    setups = {
        "Write a method": lambda blocks: (
            repo.write("boom/method.json", blocks["json"]),
            repo.write("boom/boom.py", blocks["python"]),
        ),
        "Import a spreadsheet": lambda blocks: repo.write(
            "sheet.csv",
            "source,reference\n"
            + "".join(
                f'"{e["source"]}","{e["reference"]}"\n'
                for e in shipped_entries("eng-sna-tatoeba-dev")[:10]
            ),
        ),
        "Run the example sweep": lambda blocks: repo.write(
            "sweeps/sweep.toml", (REPO / "examples" / "sweep.toml").read_text()
        ),
        "Set up the CI gate": lambda blocks: (
            repo.write("pyproject.toml", (templates / "pyproject-mteval.toml").read_text()),
            repo.write("conftest.py", (templates / "conftest.py").read_text()),
            repo.write("my-method/method.json", method_json("my-method", "my_method:MyMethod")),
            repo.write("my-method/my_method.py", IDENTITY_PY),
        ),
    }
    failing = {"pytest --mteval-corpus=shipped:eng-sna-tatoeba-dev --mteval-method=boom"}
    ran = 0
    for heading, commands, blocks in _page_steps():
        for prefix, setup in setups.items():
            if heading.startswith(prefix):
                setup(blocks)
        for command in commands:
            # the shipped crk corpus's resources under an editable install: main's 53cb6b9
            done = repo.run(command, PYTEST_ADDOPTS="--mteval-sandbox=none")
            expected = 1 if command in failing else 0
            assert done.returncode == expected, (command, done.stdout[-2500:], done.stderr[-1500:])
            ran += 1
    assert ran == 14
