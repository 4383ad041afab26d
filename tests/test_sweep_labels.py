"""A sweep's labels and logs against the names people and hostile sweep files give: a corpus
file named with spaces, brackets, dots or accents still runs, under a label derived by a
documented rule and unique in the sweep; the command on a log's first line is shell-quoted,
so pasting it into a shell runs exactly that argv and nothing else."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import CORPORA, METHODS

from pytest_mteval.cards import runcard
from pytest_mteval.sweep import plan as sweep_plan
from pytest_mteval.sweep.execute import SweepOptions, run_sweep
from pytest_mteval.sweep.plan import load_plan

#: What ``--mteval-label`` accepts (pytest_mteval/plugin/options.py).
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
#: Command substitutions a shell runs when the line is pasted unquoted.
SUBSTITUTIONS = ("a/$(touch pwned-1)", "b/`touch pwned-2`", "c/x;touch pwned-3")


def small_corpus(path: Path, entries: int = 3) -> Path:
    data = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:entries]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def sweep_file(folder: Path, corpora: list[str], models: list[str] | None = None) -> Path:
    lines = ["[sweep]", f"corpus = {json.dumps(corpora)}", f'method = "{METHODS / "identity"}"']
    lines += ['output = "out"', "runs_at_once = 2"]
    if models:
        lines += ["[axes]", f"model = {json.dumps(models)}"]
    path = folder / "sweep.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_rerun_line_of_a_log_runs_exactly_its_command(tmp_path):
    """Model names with command substitutions: the logged line, run by ``sh -c``, creates no
    file, and splits back into the argv the sweep ran."""
    small_corpus(tmp_path / "c.json")
    plan = load_plan(sweep_file(tmp_path, ["c.json"], list(SUBSTITUTIONS)), tmp_path)
    options = SweepOptions(dry_run=True, cwd=tmp_path)
    assert run_sweep(plan, options, lambda line: None) == 0
    index = json.loads((plan.output / "sweep.json").read_text(encoding="utf-8"))
    assert len(index["runs"]) == 3
    for run in index["runs"]:
        log = plan.output / "logs" / f"{run['label']}.estimate.log"
        line = log.read_text(encoding="utf-8").splitlines()[0]
        subprocess.run(["sh", "-c", line], cwd=tmp_path, capture_output=True, check=False)
        assert not list(tmp_path.rglob("pwned*")), line
        argv = shlex.split(line)
        assert argv[:3] == [sys.executable, "-m", "pytest"]
        assert argv[3 : 3 + len(run["pytest_args"])] == run["pytest_args"]
        estimate = next(a for a in argv if a.startswith("--mteval-estimate-json="))
        assert json.loads(Path(estimate.split("=", 1)[1]).read_text())["entries"] == 3


def test_corpus_file_names_with_spaces_and_brackets_run(tmp_path):
    """Three corpora whose names differ only in characters a label cannot hold: every run
    passes under its own label, and each card is its corpus's."""
    names = ["flores head.json", "flores-head.json", "Ünïcode [v2] (copy).json"]
    for name in names:
        small_corpus(tmp_path / name)
    plan = load_plan(sweep_file(tmp_path, names), tmp_path)
    labels = [c.label for c in plan.combinations]
    assert len(set(labels)) == 3
    assert all(LABEL.fullmatch(label) for label in labels), labels
    assert labels[0] == "flores-head"
    assert labels[2] == "Unicode-v2-copy"
    assert run_sweep(plan, SweepOptions(cwd=tmp_path), lambda line: None) == 0
    index = json.loads((plan.output / "sweep.json").read_text(encoding="utf-8"))
    assert [run["status"] for run in index["runs"]] == ["passed"] * 3
    for run, name in zip(index["runs"], names, strict=True):
        card = runcard.load(Path(run["card"]))
        assert Path(run["card"]).parent.name == run["label"]
        assert Path(card["dataset"]["path"]).name == name


def test_label_parts_follow_the_documented_rule():
    assert sweep_plan.label_part("flores head") == "flores-head"
    assert sweep_plan.label_part("über [v2] (copy)") == "uber-v2-copy"
    assert sweep_plan.label_part("a..b") == "a..b"
    assert sweep_plan.label_part("..") == "x"
    assert sweep_plan.label_part(".hidden") == "hidden"
    assert sweep_plan.label_part("日本語") == "x"
    assert sweep_plan.label_part("gpt-4.1+mini") == "gpt-4.1+mini"
    assert len(sweep_plan.label_part("a" * 500)) == 48
