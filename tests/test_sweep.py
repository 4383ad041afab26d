"""Sweeps in real sessions: a 2 x 2 parameter space of raw-llm runs against a real
chat-completions server on 127.0.0.1, each combination an ordinary pytest run of its own."""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply
from conftest import CORPORA, METHODS

from pytest_mteval.cards import runcard
from pytest_mteval.sweep.matrix import axis_means, failed_everywhere, load_rows
from pytest_mteval.sweep.plan import SweepError, load_plan
from pytest_mteval.sweep.resume import failed_cards

pytest_plugins = ["pytester"]

KEY_ENV = "MTEVAL_TEST_SWEEP_KEY"
KEY = "sk-sweep-secret-51c2"
MODELS = ("test/good", "test/naive")
TEMPERATURES = (0.0, 0.3)


@pytest.fixture
def corpus(tmp_path):
    """The first six real entries of the shipped FLORES eng->fra corpus."""
    data = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:6]
    path = tmp_path / "flores-head.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def server(monkeypatch, corpus):
    """ "test/good" answers with the human reference, "test/naive" with the tagged source."""
    entries = json.loads(corpus.read_text(encoding="utf-8"))["entries"]
    reference = {e["source"]: e["reference"] for e in entries}
    monkeypatch.setenv(KEY_ENV, KEY)
    with ChatServer(model_id="test/served") as running:

        def respond(body):
            if body.get("model") != "test/good":
                return None
            user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
            return Reply.ok(text=reference.get(user, user))

        running.responder = respond
        yield running


def write_sweep(folder: Path, corpus: Path, server: ChatServer, **sweep: object) -> Path:
    prices = folder / "prices.json"
    prices.write_text(
        json.dumps({"models": {m: {"input": 2.0, "output": 10.0} for m in MODELS}}),
        encoding="utf-8",
    )
    settings = {"concurrency": 8, **sweep}
    lines = [
        "[sweep]",
        f'corpus = "{corpus}"',
        f'method = "{METHODS / "raw-llm"}"',
        'output = "out"',
        *(f"{key} = {json.dumps(value)}" for key, value in settings.items()),
        "",
        "[axes]",
        f"model = {json.dumps(list(MODELS))}",
        f"temperature = {json.dumps(list(TEMPERATURES))}",
        "",
        "[method_args]",
        f'base_url = "{server.url}"',
        f'api_key_env = "{KEY_ENV}"',
        f'prices = "{prices}"',
        "max_attempts = 1",
    ]
    path = folder / "sweep.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cards_of(folder: Path) -> dict[str, list[Path]]:
    return {d.name: sorted(d.glob("*.json")) for d in sorted((folder / "cards").iterdir())}


def test_every_combination_is_a_run_with_its_own_card(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server)
    result = pytester.runpytest(f"--mteval-sweep={sweep}")
    assert result.ret == 0, result.stdout.str()
    out = pytester.path / "out"
    found = cards_of(out)
    assert len(found) == 4
    seen = set()
    for label, paths in found.items():
        assert len(paths) == 1, label
        card = runcard.load(paths[0])
        runcard.verify(card, paths[0])
        seen.add((card["model_slug"], card["temperature"]))
        assert card["method"]["run_config"]["method_args"]["base_url"] == server.url
        assert len(card["results"]) == 6
        assert KEY not in paths[0].read_text(encoding="utf-8")
    assert seen == {(m, t) for m in MODELS for t in TEMPERATURES}
    fingerprints = {runcard.load(p[0])["fingerprint"] for p in found.values()}
    assert len(fingerprints) == 4
    # every request reached the server with its combination's model and temperature
    sent = {(r.body["model"], r.body["temperature"]) for r in server.requests}
    assert sent == seen
    assert len(server.requests) == 4 * 6
    index = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    assert [run["status"] for run in index["runs"]] == ["passed"] * 4
    assert {run["fingerprint"] for run in index["runs"]} == fingerprints
    # each run's items are named after its combination: corpus::label::batch::entry
    for label in found:
        junit = (out / "junit" / f"{label}.xml").read_text(encoding="utf-8")
        cases = re.findall(r'<testcase classname="([^"]+)" name="([^"]+)"', junit)
        assert len(cases) == 6
        assert all(f".{label}.batch-0000" in classname for classname, _ in cases), cases


def test_k_selects_within_every_combination(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server)
    result = pytester.runpytest(f"--mteval-sweep={sweep}", "-k", "good and t0.3 and entry-1")
    # runs whose label does not match deselect everything: pytest's "no tests ran" (exit 5)
    index = json.loads((pytester.path / "out" / "sweep.json").read_text(encoding="utf-8"))
    by_label = {run["label"]: run for run in index["runs"]}
    assert by_label["good_t0.3"]["exit_code"] == 0
    log = (pytester.path / "out" / "logs" / "good_t0.3.log").read_text(encoding="utf-8")
    assert "1 passed" in log
    others = [run for label, run in by_label.items() if label != "good_t0.3"]
    assert [run["status"] for run in others] == ["nothing selected"] * 3
    assert result.ret == 0


def test_second_invocation_reuses_every_card(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server)
    assert pytester.runpytest(f"--mteval-sweep={sweep}").ret == 0
    before = cards_of(pytester.path / "out")
    requests = len(server.requests)
    again = pytester.runpytest(f"--mteval-sweep={sweep}")
    assert again.ret == 0
    assert len(server.requests) == requests  # nothing translated twice
    assert cards_of(pytester.path / "out") == before
    assert sum("reused" in line for line in again.stdout.lines) == 4


def statuses(output: Path) -> list[str]:
    """The runs' statuses in a sweep's index, sorted."""
    index = json.loads((output / "sweep.json").read_text(encoding="utf-8"))
    return sorted(run["status"] for run in index["runs"])


def test_a_failed_run_is_run_again_not_reused(pytester, server, corpus):
    """A run that failed its gate wrote a complete card; the next invocation runs it again
    (its gate judged anew) instead of listing it as reused, and the sweep still fails."""
    sweep = write_sweep(pytester.path, corpus, server)
    gate = "--mteval-fail-under=0.5"  # the "test/good" runs pass it, the "test/naive" runs fail
    first = pytester.runpytest(f"--mteval-sweep={sweep}", gate)
    assert first.ret == 1, first.stdout.str()
    assert statuses(pytester.path / "out") == [
        "failed",
        "failed",
        "passed",
        "passed",
    ]
    before = cards_of(pytester.path / "out")
    again = pytester.runpytest(f"--mteval-sweep={sweep}", gate)
    assert again.ret == 1
    assert sum(line.startswith("  reused ") for line in again.stdout.lines) == 2
    assert sum(line.startswith("  rerun ") for line in again.stdout.lines) == 2
    # the failed runs ran again (each has a second card; the cache served their translations)
    after = cards_of(pytester.path / "out")
    assert {label: len(after[label]) - len(cards) for label, cards in before.items()} == {
        "good_t0.0": 0,
        "good_t0.3": 0,
        "naive_t0.0": 1,
        "naive_t0.3": 1,
    }
    assert statuses(pytester.path / "out") == [
        "failed",
        "failed",
        "reused",
        "reused",
    ]


def test_an_unreadable_index_names_no_failed_card(tmp_path):
    """The earlier verdicts come from the sweep's own index; a missing, truncated or edited
    one makes nothing count as failed (every complete card is reused, as before the index)."""
    index = tmp_path / "sweep.json"
    assert failed_cards(index) == frozenset()
    for text in ("{", "[]", '{"runs": 3}', '{"runs": [1, {"status": "failed"}]}'):
        index.write_text(text, encoding="utf-8")
        assert failed_cards(index) == frozenset(), text
    runs = [{"status": "failed", "card": "a.json"}, {"status": "passed", "card": "b.json"}]
    index.write_text(json.dumps({"runs": runs}), encoding="utf-8")
    assert failed_cards(index) == frozenset({"a.json"})


def test_changed_configuration_is_not_reused(pytester, server, corpus):
    """A card is reused by fingerprint: another batch size is another run."""
    sweep = write_sweep(pytester.path, corpus, server)
    assert pytester.runpytest(f"--mteval-sweep={sweep}").ret == 0
    requests = len(server.requests)
    result = pytester.runpytest(f"--mteval-sweep={sweep}", "--mteval-batch-size=2")
    assert result.ret == 0
    assert len(server.requests) == 2 * requests


def test_interrupted_sweep_resumes_where_it_stopped(pytester, server, corpus):
    server.latency_s = 0.3
    sweep = write_sweep(pytester.path, corpus, server, runs_at_once=1, concurrency=1)
    cards = pytester.path / "out" / "cards"
    command = [sys.executable, "-m", "pytest", f"--mteval-sweep={sweep}", "-p", "no:randomly"]
    process = subprocess.Popen(command, cwd=pytester.path, env=os.environ.copy())
    # a generous bound: the wait ends as soon as the first card exists, and a loaded CI
    # machine may take minutes to start a pytest session and its runner
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list(cards.glob("*/*.json")):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) != 0
    done = [p for p in cards.glob("*/*.json")]
    assert 1 <= len(done) < 4
    first = len(server.requests)
    server.latency_s = 0.0
    resumed = pytester.runpytest(f"--mteval-sweep={sweep}")
    assert resumed.ret == 0, resumed.stdout.str()
    reused = sum("reused" in line for line in resumed.stdout.lines)
    assert reused == len(done)
    # the runs that finished were not translated again
    assert len(server.requests) - first == (4 - len(done)) * 6
    index = json.loads((pytester.path / "out" / "sweep.json").read_text(encoding="utf-8"))
    assert sorted(run["status"] for run in index["runs"]).count("reused") == len(done)


def test_dry_run_total_is_the_sum_of_the_runs(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server)
    result = pytester.runpytest(f"--mteval-sweep={sweep}", "--mteval-dry-run")
    assert result.ret == 0, result.stdout.str()
    assert server.requests == []
    estimates = sorted((pytester.path / "out" / "estimates").glob("*.json"))
    assert len(estimates) == 4
    costs = [json.loads(p.read_text(encoding="utf-8"))["estimated_cost_usd"] for p in estimates]
    assert all(c > 0 for c in costs)
    total_line = next(line for line in result.stdout.lines if "estimated total" in line)
    assert float(total_line.rsplit("$", 1)[1]) == pytest.approx(sum(costs), abs=5e-5)
    assert not list((pytester.path / "out" / "cards").glob("*/*.json"))


def test_over_budget_sweep_is_refused_unless_allowed(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server, budget_usd=1e-6)
    refused = pytester.runpytest(f"--mteval-sweep={sweep}")
    assert refused.ret == 4
    refused.stdout.fnmatch_lines(["*refused: estimated $* exceeds the sweep's budget $0.00*"])
    assert server.requests == []
    allowed = pytester.runpytest(f"--mteval-sweep={sweep}", "--mteval-allow-over-budget")
    assert allowed.ret == 0
    assert len(server.requests) == 24


def test_matrix_rows_axis_means_and_hard_entries(pytester, server, corpus):
    sweep = write_sweep(pytester.path, corpus, server)
    result = pytester.runpytest(f"--mteval-sweep={sweep}")
    assert result.ret == 0
    out = pytester.path / "out"
    cards = {label: runcard.load(paths[0]) for label, paths in cards_of(out).items()}
    composite = {label: card["scores"]["composite"] for label, card in cards.items()}
    # axis means, recomputed here from the cards themselves
    means = axis_means(load_rows([out]))
    for model, word in (("test/good", "good"), ("test/naive", "naive")):
        expected = statistics.fmean(v for k, v in composite.items() if k.startswith(word))
        assert means["model"][model] == pytest.approx(expected)
    assert means["model"]["test/good"] > means["model"]["test/naive"]
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_mteval.cli.main",
            "matrix",
            str(out),
            "--method",
            "good_t0.0",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    rows = [line for line in shown.stdout.splitlines() if line.startswith("| ") and "_t" in line]
    assert len(rows) == 4
    best = max(composite, key=lambda k: composite[k])
    assert re.match(rf"\| 1(–\d)? \| {re.escape(best)} ", rows[0])  # ranked first
    # a naive run is a baseline only when its method class says so: raw-llm is
    assert "the best baseline" in shown.stdout
    # entries failed by every run: naive runs fail all (tagged source), good runs none
    assert failed_everywhere(load_rows([out])) == []


def test_sweep_file_errors_name_the_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\ncorpus = "x.json"\nmethod = "identity"\nbudget_usd = -1\n')
    with pytest.raises(SweepError, match=r"bad.toml: field sweep.budget_usd"):
        load_plan(bad, tmp_path)
    bad.write_text('[sweep]\ncorpus = "x.json"\nmethod = "m"\n[axes]\nmodel = []\n')
    with pytest.raises(SweepError, match=r"axes.*has no values"):
        load_plan(bad, tmp_path)
    bad.write_text('[sweep]\ncorpus = "x.json"\nmethod = "m"\n[[exclude]]\nmodle = "a"\n')
    with pytest.raises(SweepError, match=r"exclude names unknown axes \['modle'\]"):
        load_plan(bad, tmp_path)
    bad.write_text("[sweep\n")
    with pytest.raises(SweepError, match=r"bad.toml: not valid TOML"):
        load_plan(bad, tmp_path)


def test_exclusions_and_labels(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        '[sweep]\ncorpus = "c.json"\nmethod = "raw-llm"\n'
        '[axes]\nmodel = ["a/x", "b/y"]\ntemperature = [0.0, 0.7]\nprompt_version = ["v1"]\n'
        '[[exclude]]\nmodel = "b/y"\ntemperature = 0.7\n'
    )
    plan = load_plan(path, tmp_path)
    assert [c.label for c in plan.combinations] == ["x_t0.0", "x_t0.7", "y_t0.0"]
    args = plan.combinations[1].pytest_args()
    assert "--mteval-model=a/x" in args
    assert "--mteval-temperature=0.7" in args
    assert "--mteval-method-arg=prompt_version=v1" in args
    assert plan.output == tmp_path / ".mteval" / "sweeps" / "s"


def test_dry_run_knows_the_fingerprint_of_the_run_to_come(pytester):
    """The planned fingerprint (what a sweep reuses cards by) equals the real card's."""
    data = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:5]
    (pytester.path / "c.json").write_text(json.dumps(data, ensure_ascii=False))
    common = ["--mteval-corpus=c.json", f"--mteval-method={METHODS / 'identity'}"]
    common += ["--mteval-batch-size=3", "--mteval-condition=sweep-test"]
    planned = pytester.runpytest(*common, "--mteval-dry-run", "--mteval-estimate-json=e.json")
    assert planned.ret == 0
    estimate = json.loads((pytester.path / "e.json").read_text(encoding="utf-8"))
    assert estimate["estimated_cost_usd"] == 0.0  # class S: no paid call
    assert estimate["entries"] == 5
    assert pytester.runpytest(*common, "--mteval-run-card=card.json").ret == 0
    card = runcard.load(pytester.path / "card.json")
    assert estimate["fingerprint"] == card["fingerprint"] == runcard.fingerprint(card)
