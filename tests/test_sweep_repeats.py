"""A sweep with ``repeats = 3`` in real sessions against the loopback chat server: each
configuration runs three times uncached, and the matrix shows its mean and spread (spec §1.3)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from chat_server import ChatServer
from conftest import METHODS
from sampling_model import SamplingModel, sna_head_and_prices

from pytest_mteval.cli.main import main
from pytest_mteval.sweep.plan import load_plan

KEY_ENV = "MTEVAL_TEST_SWEEP_REPEATS_KEY"
ENTRIES = 8


@pytest.fixture
def sweep(tmp_path, monkeypatch):
    corpus, prices = sna_head_and_prices(tmp_path, ENTRIES)
    monkeypatch.setenv(KEY_ENV, "sk-sweep-repeats")
    monkeypatch.chdir(tmp_path)
    with ChatServer(model_id="test/sampler-1") as server:
        server.responder = SamplingModel(corpus)
        path = tmp_path / "sweep.toml"
        path.write_text(
            "\n".join(
                [
                    "[sweep]", f'corpus = "{corpus}"', f'method = "{METHODS / "raw-llm"}"',
                    'output = "out"', "repeats = 3", "", "[axes]",
                    'model = ["test/sampler"]', "temperature = [0.0, 0.7]", "",
                    "[method_args]", f'base_url = "{server.url}"', f'api_key_env = "{KEY_ENV}"',
                    f'prices = "{prices}"', "max_attempts = 1",
                ]
            )
            + "\n",
            encoding="utf-8",
        )  # fmt: skip
        yield path, server


def test_repeats_run_uncached_and_the_matrix_shows_mean_and_spread(sweep, capsys):
    path, server = sweep
    plan = load_plan(path, path.parent)
    labels = [c.label for c in plan.combinations]
    assert labels == ["t0.0_r1", "t0.0_r2", "t0.0_r3", "t0.7_r1", "t0.7_r2", "t0.7_r3"]
    assert all("--mteval-no-cache" in c.pytest_args() for c in plan.combinations)
    assert main(["sweep", str(path)]) == 0
    capsys.readouterr()
    assert len(server.requests) == 6 * ENTRIES  # every repeat translated every entry again
    out = path.parent / "out"
    index = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    cards = {}
    for run in index["runs"]:
        card = json.loads(Path(run["card"]).read_text(encoding="utf-8"))
        assert card["cache"]["cache_hits"] == 0
        cards.setdefault(run["configuration"], []).append(card["scores"])
    assert sorted(cards) == ["t0.0", "t0.7"]
    assert main(["matrix", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "Repeats of each configuration (cache off; spec §1.3):" in shown
    for configuration, scores in cards.items():
        composite = [s["composite"] for s in scores]
        chrf = [s["chrf_plus_plus"] for s in scores]
        line = next(x for x in shown.splitlines() if x.startswith(f"| {configuration} | 3 |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[2]) == pytest.approx(statistics.fmean(composite), abs=5e-5)
        assert float(cells[3]) == pytest.approx(max(composite) - min(composite), abs=5e-5)
        assert float(cells[4]) == pytest.approx(statistics.stdev(composite), abs=5e-5)
        assert float(cells[5]) == pytest.approx(statistics.fmean(chrf), abs=5e-3)
        assert float(cells[6]) == pytest.approx(max(chrf) - min(chrf), abs=5e-3)
        within = max(composite) - min(composite) <= 0.02 * max(abs(v) for v in composite)
        assert cells[7] == ("yes" if within else "no")
    assert max(cards["t0.0"], key=lambda s: s["composite"]) == min(
        cards["t0.0"], key=lambda s: s["composite"]
    )  # temperature 0: the repeats agree
    assert len({s["composite"] for s in cards["t0.7"]}) > 1  # 0.7: they spread
