"""``mteval matrix`` given what it should refuse: every refusal is one line on stderr that
names the file, with exit status 2 and no traceback; a moved sweep folder still reads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import METHODS, envelope, flores_entries


def _matrix(*sources: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest_mteval.cli.main", "matrix", *map(str, sources)]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd)


def _refused(result: subprocess.CompletedProcess[str], *named: str) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for text in named:
        assert text in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real card: three FLORES entries through the identity method."""
    folder = tmp_path_factory.mktemp("matrix-card")
    corpus = folder / "corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(3)), ensure_ascii=False), "utf-8")
    path = folder / "card.json"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--mteval-corpus={corpus}", f"--mteval-method={METHODS / 'identity'}"]
    command += [f"--mteval-run-card={path}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def test_a_real_card_is_shown(card: Path, tmp_path: Path) -> None:
    shown = _matrix(card, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "| card " in shown.stdout


def test_a_forged_card_is_refused(card: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.json"
    data = json.loads(card.read_text(encoding="utf-8"))
    data["scores"]["composite"] = 0.99
    forged.write_text(json.dumps(data), encoding="utf-8")
    _refused(_matrix(forged, cwd=tmp_path), str(forged))


def test_a_file_that_is_not_a_card_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(1))), encoding="utf-8")
    _refused(_matrix(corpus, cwd=tmp_path), str(corpus))


@pytest.mark.parametrize(
    ("index", "why"),
    [
        ('{"runs": 5}', "not a sweep index"),
        ('{"runs": [{"values": {}}]}', "label"),
        ('{"runs": [], "nan": NaN}', "sweep.json"),
        ("[", "sweep.json"),
    ],
)
def test_a_broken_sweep_index_is_refused(tmp_path: Path, index: str, why: str) -> None:
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "sweep.json").write_text(index, encoding="utf-8")
    _refused(_matrix(folder, cwd=tmp_path), str(folder / "sweep.json"), why)


def test_an_index_naming_a_missing_card_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    folder.mkdir()
    index = {"runs": [{"label": "a", "values": {}, "card": "elsewhere/cards/a.json"}]}
    (folder / "sweep.json").write_text(json.dumps(index), encoding="utf-8")
    _refused(_matrix(folder, cwd=tmp_path), "elsewhere/cards/a.json")


def test_a_moved_sweep_folder_finds_its_cards(card: Path, tmp_path: Path) -> None:
    """The index records card paths relative to where the sweep ran; read from elsewhere,
    the folder's own ``cards/`` holds them."""
    folder = tmp_path / "moved"
    (folder / "cards").mkdir(parents=True)
    shutil.copy(card, folder / "cards" / "a.json")
    index = {"runs": [{"label": "a", "values": {"model": "x"}, "card": "out/cards/a.json"}]}
    (folder / "sweep.json").write_text(json.dumps(index), encoding="utf-8")
    shown = _matrix(folder, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "| a " in shown.stdout


def test_no_card_at_all_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _refused(_matrix(empty, cwd=tmp_path), "no run card", str(empty))
