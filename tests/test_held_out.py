"""Held-out entries (spec §2.3: "never used until activated") on real sessions: a plain run
never collects them, an explicit activation does, and the card says which it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from replayed_runs import GPT55, REPLAY, SNA_CORPUS

#: Entries of the real eng→sna corpus moved to held_out (every fifth one).
HELD = slice(0, None, 5)


def held_out_corpus(folder: Path) -> tuple[Path, set[str]]:
    document = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))
    held = {str(e["id"]) for e in document["entries"][HELD]}
    for entry in document["entries"]:
        if str(entry["id"]) in held:
            entry["segment"] = "held_out"
    path = folder / "sna-with-held-out.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, held


def session(
    folder: Path, corpus: Path, *extra: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    card = folder / "card.json"
    card.unlink(missing_ok=True)
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--mteval-corpus={corpus}", f"--mteval-method={REPLAY}",
            f"--mteval-method-arg=predictions={GPT55}", f"--mteval-run-card={card}", *extra,
        ],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done, card


def test_a_plain_run_never_collects_held_out_entries(tmp_path):
    corpus, held = held_out_corpus(tmp_path)
    done, path = session(tmp_path, corpus, "--collect-only")
    assert done.returncode == 0, done.stdout + done.stderr
    collected = done.stdout
    assert all(f"entry-{i}" not in collected and i not in collected for i in held)
    done, path = session(tmp_path, corpus)
    assert path.is_file(), done.stdout + done.stderr
    card = json.loads(path.read_text(encoding="utf-8"))
    ran = {row["entry_id"] for row in card["results"]}
    assert ran.isdisjoint(held)
    assert len(ran) == 47 - len(held)
    assert card["dataset"]["segments"] == {
        "covered": ["development"],
        "held_out_activated": False,
        "held_out_left_out": len(held),
        "gold_standard_only": False,
    }
    assert card["coverage"]["complete"] is True  # leaving reserved entries out is the rule


@pytest.mark.parametrize("how", ["--mteval-activate-held-out", "-o=mteval_activate_held_out=true"])
def test_an_activated_run_collects_them_and_says_so(tmp_path, how):
    corpus, held = held_out_corpus(tmp_path)
    done, path = session(tmp_path, corpus, how)
    assert path.is_file(), done.stdout + done.stderr
    card = json.loads(path.read_text(encoding="utf-8"))
    assert {row["entry_id"] for row in card["results"]} >= held
    assert card["dataset"]["entry_count"] == 47
    segments = card["dataset"]["segments"]
    assert segments["covered"] == ["development", "held_out"]
    assert segments["held_out_activated"] is True
    assert segments["held_out_left_out"] == 0


def test_asking_for_the_segment_without_activating_it_is_refused(tmp_path):
    corpus, _ = held_out_corpus(tmp_path)
    done, path = session(tmp_path, corpus, "--mteval-segment=held_out")
    assert done.returncode != 0
    assert not path.exists()
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "reserved" in line]
    assert len(lines) == 1
    assert "--mteval-activate-held-out" in lines[0]
    assert str(corpus) in lines[0]
