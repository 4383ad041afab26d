"""Issue 41, group 2: evidence names what ran, not a folder. Attacks first, in real sessions:
a command runtime whose script lies outside its folder, a run whose outputs come from a file
named by a ``path`` method arg, an interpreter swapped under one folder hash."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import METHODS, envelope, flores_entries
from methods_for_tests import MANIFEST

pytest_plugins = ["pytester"]

#: A runner over the protocol (docs/runner-protocol.md) that answers with a fixed word, and
#: leaves a mark beside the method when it ran at all.
RUNNER = """
import json, sys
from pathlib import Path
Path({mark!r}).write_text("ran", encoding="utf-8")
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n"); sys.stdout.flush()
send({{"type": "hello", "protocol": 1, "runtime": "command"}})
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        send({{"type": "ready", "describe": {{"class_name": "fixed", "cacheable": False}}}})
    elif message["type"] == "translate":
        results = [{{"id": e["id"], "predicted": {word!r}}} for e in message["entries"]]
        send({{"type": "result", "ticket": message["ticket"], "results": results}})
"""


def _corpus(folder: Path, count: int = 3) -> Path:
    corpus = folder / "corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(count))), encoding="utf-8")
    return corpus


def _session(pytester: pytest.Pytester, corpus: Path, method: Path, *args: str):
    card = pytester.path / "card.json"
    card.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        f"--mteval-run-card={card}", "--mteval-no-cache", *args,
    )  # fmt: skip
    return result, (json.loads(card.read_text("utf-8")) if card.exists() else None)


def _script(path: Path, word: str, mark: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + RUNNER.format(mark=str(mark), word=word), "utf-8")
    path.chmod(0o755)
    return path


def _command_method(folder: Path, runtime: list[str]) -> Path:
    method = folder / "methods" / "cmd"
    method.mkdir(parents=True)
    (method / "README.md").write_text("a wrapper\n", encoding="utf-8")
    manifest = {**MANIFEST, "runtime": runtime, "entry_point": "runner.py"}
    (method / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    return method


@pytest.mark.parametrize(
    "runtime",
    [
        ["{elsewhere}/runner.py"],
        ["../../elsewhere/runner.py"],
        ["python3", "{elsewhere}/runner.py"],
        ["python3", "../../elsewhere/runner.py"],
    ],
    ids=["absolute", "relative", "interpreter-absolute", "interpreter-relative"],
)
def test_attack_a_command_whose_script_lies_outside_the_folder_is_refused(
    pytester: pytest.Pytester, tmp_path: Path, runtime: list[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    mark = tmp_path / "ran.txt"
    _script(elsewhere / "runner.py", "hors", mark)
    method = _command_method(tmp_path, [p.format(elsewhere=elsewhere) for p in runtime])
    result, card = _session(pytester, _corpus(tmp_path), method)
    assert card is None
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    lines = [line for line in errors.splitlines() if "outside the method folder" in line]
    assert len(lines) == 1, errors
    assert f"{method / 'method.json'}: field 'runtime'" in lines[0]
    assert "Traceback" not in errors
    assert not mark.exists()  # refused before anything of it ran


def test_a_command_s_script_in_its_folder_runs_and_its_interpreter_joins_the_code_hash(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    method = _command_method(tmp_path, ["./runner.py"])
    _script(method / "runner.py", "dedans", tmp_path / "ran.txt")
    result, card = _session(pytester, _corpus(tmp_path), method)
    assert card is not None, result.stderr.str()
    assert {r["predicted"] for r in card["results"]} == {"dedans"}
    code = card["method"]["code"]
    interpreter = Path(sys.executable).resolve()
    assert code["rule"] == "pytest-mteval-code/2"
    assert code["inputs"] == [
        {
            "role": "interpreter",
            "path": str(interpreter),
            "sha256": hashlib.sha256(interpreter.read_bytes()).hexdigest(),
            "kind": "file",
        }
    ]
    assert code["sha256"] == _rule_two(code["folder_sha256"], code["inputs"])
    assert code["folder_sha256"] == _folder_listing_hash(method)


def _folder_listing_hash(folder: Path) -> str:
    """Rule 1 as its docstring's coreutils pipeline computes it."""
    lines = sorted(
        (p.relative_to(folder).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    listing = "".join(f"{digest}  {name}\n" for name, digest in lines)
    return hashlib.sha256(listing.encode()).hexdigest()


def _rule_two(folder_sha256: str, inputs: list[dict[str, str]]) -> str:
    listing = f"{folder_sha256}  .\n" + "".join(
        f"{i['sha256']}  @{i['role']}\n" for i in sorted(inputs, key=lambda i: i["role"])
    )
    return hashlib.sha256(listing.encode()).hexdigest()


def _predictions(path: Path, word: str, count: int = 3) -> Path:
    rows = [{"id": e["id"], "predicted": word} for e in flores_entries(count)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_attack_outputs_from_a_path_arg_file_change_the_code_hash(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    method = tmp_path / "replay"
    shutil.copytree(METHODS / "replay", method, ignore=shutil.ignore_patterns("__pycache__"))
    corpus = _corpus(tmp_path)
    cards = {}
    for word in ("bonjour", "zzz"):
        given = _predictions(tmp_path / f"{word}.jsonl", word)
        result, card = _session(
            pytester, corpus, method, f"--mteval-method-arg=predictions={given}"
        )
        assert card is not None, result.stderr.str()
        assert {r["predicted"] for r in card["results"]} == {word}
        code = card["method"]["code"]
        digest = hashlib.sha256(given.read_bytes()).hexdigest()
        assert code["inputs"] == [
            {"role": "arg:predictions", "path": str(given), "sha256": digest, "kind": "file"}
        ]
        assert code["folder_sha256"] == _folder_listing_hash(method)
        assert code["sha256"] == _rule_two(code["folder_sha256"], code["inputs"])
        cards[word] = card
    assert cards["bonjour"]["method"]["code"]["sha256"] != cards["zzz"]["method"]["code"]["sha256"]


def test_a_run_without_inputs_keeps_rule_one_and_its_hash(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    method = tmp_path / "identity"
    shutil.copytree(METHODS / "identity", method, ignore=shutil.ignore_patterns("__pycache__"))
    (method / ".impl.py").write_text("# a dot-file counts\n", encoding="utf-8")
    result, card = _session(pytester, _corpus(tmp_path), method)
    assert card is not None, result.stderr.str()
    code = card["method"]["code"]
    assert code["rule"] == "pytest-mteval-code/1"
    assert "inputs" not in code
    assert code["sha256"] == _folder_listing_hash(method)
