"""Independent reproduction on real sessions against the loopback chat server (spec §1.3,
§9.2.3, §9.4): a cached rerun or a rerun signed by the submitter's key does not make a card
maintainer-verified, an uncached one signed by a maintainer key does; `mteval reproduce`
re-runs a card uncached and reports the spread of its scores at temperature 0.7."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from chat_server import ChatServer
from conftest import METHODS
from sampling_model import SamplingModel, sna_head_and_prices, submitter_and_maintainer_keys

from pytest_mteval.cli.main import main

KEY_ENV = "MTEVAL_TEST_REPRO_KEY"
ENTRIES = 12


@pytest.fixture
def setup(tmp_path, monkeypatch):
    corpus, prices = sna_head_and_prices(tmp_path, ENTRIES)
    keys = submitter_and_maintainer_keys(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-repro-test")
    monkeypatch.chdir(tmp_path)
    with ChatServer(model_id="test/sampler-1") as server:
        server.responder = SamplingModel(corpus)
        yield tmp_path, corpus, prices, keys, server


def session(folder, corpus, prices, server, card, *extra):
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--mteval-corpus={corpus}", f"--mteval-method={METHODS / 'raw-llm'}",
            "--mteval-model=test/sampler", f"--mteval-prices={prices}",
            f"--mteval-method-arg=base_url={server.url}",
            f"--mteval-method-arg=api_key_env={KEY_ENV}", f"--mteval-run-card={card}", *extra,
        ],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert card.is_file(), done.stdout + done.stderr
    return json.loads(card.read_text(encoding="utf-8"))


def test_only_an_uncached_maintainer_signed_rerun_verifies(setup, capsys):
    folder, corpus, prices, keys, server = setup
    board = folder / "board"
    board.mkdir()
    sub, maint = f"--mteval-sign-key={keys['submitter']}", f"--mteval-sign-key={keys['maintainer']}"
    original = session(folder, corpus, prices, server, board / "original.json", sub)
    assert original["cache"]["cache_hits"] == 0
    cached = session(folder, corpus, prices, server, board / "cached.json", maint)
    assert cached["cache"]["cache_hits"] == ENTRIES  # served from the cache, not re-translated
    assert cached["fingerprint"] == original["fingerprint"]
    same_key = session(
        folder, corpus, prices, server, board / "same-key.json", sub, "--mteval-no-cache"
    )
    assert same_key["cache"]["cache_hits"] == 0
    assert main(["leaderboard", str(board), f"--maintainer-key={keys['maintainer']}.pub"]) == 0
    assert "maintainer-verified" not in capsys.readouterr().out
    tiers = reasons_by_run(board, keys)
    assert tiers[original["run_id"]] == (
        "self-benchmarked: no independent reproduction: "
        f"run {cached['run_id'][:8]} served {ENTRIES} entries from the translation cache; "
        f"run {same_key['run_id'][:8]} is not signed by a maintainer key"
    )
    independent = session(
        folder, corpus, prices, server, board / "independent.json", maint, "--mteval-no-cache"
    )
    assert independent["scores"]["composite"] == original["scores"]["composite"]  # t = 0
    assert main(["leaderboard", str(board), f"--maintainer-key={keys['maintainer']}.pub"]) == 0
    assert "maintainer-verified" in capsys.readouterr().out
    tiers = reasons_by_run(board, keys)
    assert tiers[original["run_id"]].startswith("maintainer-verified")
    assert f"maintainer run {independent['run_id'][:8]}" in tiers[original["run_id"]]
    assert tiers[same_key["run_id"]].startswith("maintainer-verified")  # by the same rerun
    # the maintainer's own run has no reproduction by anyone else's maintainer key
    assert tiers[independent["run_id"]].startswith("self-benchmarked")
    assert "is not signed by a maintainer key" in tiers[independent["run_id"]]


def reasons_by_run(folder: Path, keys) -> dict[str, str]:
    """run id -> "tier: reason", straight from leaderboard.build (the page shows the reason as
    the Verification cell's title)."""
    from pytest_mteval.cards.signing import load_public_key
    from pytest_mteval.reports import leaderboard

    built = leaderboard.build(
        leaderboard.card_paths([str(folder)]),
        None,
        [load_public_key(Path(f"{keys['maintainer']}.pub"))],
    )
    return {
        row.run_id: f"{row.verification}: {row.verification_reason}"
        for board in built.boards
        for row in board.rows
    }


def test_reproduce_three_repeats_at_temperature_0_7_reports_a_spread(setup, capsys):
    folder, corpus, prices, _, server = setup
    card = folder / "hot.json"
    original = session(folder, corpus, prices, server, card, "--mteval-temperature=0.7")
    before = len(server.requests)
    out_dir = folder / "repro"
    code = main(
        ["reproduce", str(card), "--repeats", "3", "--output", str(out_dir),
         f"--pytest-arg=--mteval-prices={prices}", f"--base-url={server.url}",
         f"--api-key-env={KEY_ENV}"]
    )  # fmt: skip
    captured = capsys.readouterr()
    out = captured.out
    print(out)  # the report, for a reader of -s
    assert len(server.requests) - before == 3 * ENTRIES, captured.err  # nothing came from the cache
    repeats = [json.loads((out_dir / f"repeat-{i}.json").read_text()) for i in (1, 2, 3)]
    assert all(r["cache"]["cache_hits"] == 0 for r in repeats)
    assert all(r["fingerprint"] == original["fingerprint"] for r in repeats)
    assert all(r["temperature"] == 0.7 for r in repeats)
    for name in ("composite", "chrf_plus_plus"):
        values = [r["scores"][name] for r in repeats]
        own = original["scores"][name]
        line = next(line for line in out.splitlines() if line.startswith(f"{name} "))
        shown = [float(x.rstrip("%")) for x in line.split()[1:]]
        assert shown[0] == pytest.approx(own, abs=5e-5)
        assert shown[1] == pytest.approx(statistics.fmean(values), abs=5e-5)
        assert shown[2] == pytest.approx(max(values) - min(values), abs=5e-5)
        assert shown[2] > 0  # sampling at 0.7: the repeats differ
        gap = max(abs(v - own) / max(abs(v), abs(own)) for v in values)
        assert shown[4] == pytest.approx(100 * gap, abs=5e-3)
    composite = [r["scores"]["composite"] for r in repeats]
    own = original["scores"]["composite"]
    holds = all(abs(v - own) <= 0.02 * max(abs(v), abs(own)) for v in composite)
    assert code == (0 if holds else 1)
    verdict = re.search(r"±2% \(spec §1\.3\) (holds|does NOT hold)", out)
    assert verdict is not None
    assert verdict.group(1) == ("holds" if holds else "does NOT hold")


def test_a_card_whose_corpus_is_gone_is_refused_in_one_line(setup, capsys):
    folder, corpus, prices, _, server = setup
    card = folder / "card.json"
    session(folder, corpus, prices, server, card)
    moved = folder / "moved.json"
    shutil.move(corpus, moved)
    assert main(["reproduce", str(card), "--output", str(folder / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "field 'dataset.path'" in err[0]
    assert "--corpus" in err[0]
