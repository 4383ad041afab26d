"""Methods in other runtimes over the runner protocol (docs/runner-protocol.md): the shipped
two-runtime method gives the same card from Python and from Node.js, champollion's config picks
the method for the corpus's pair, commands that speak the protocol are methods (the wrapper
examples), and a runner of another protocol version is refused. Real processes throughout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import sacrebleu
from conftest import CORPORA, METHODS, REPO, envelope, flores_entries
from methods_for_tests import MANIFEST, NODE, needs_node

pytest_plugins = ["pytester"]

LOOKUP = METHODS / "lookup"
WRAPPERS = REPO / "examples" / "wrappers"
#: What depends on the clock, not on the method: left out when two runs are compared.
TIMING = {"entries_per_minute", "avg_latency_seconds", "median_latency_seconds",
          "p95_latency_seconds"}  # fmt: skip
ROW_TIMING = {"latency_s"}


@pytest.fixture
def crk_corpus(tmp_path):
    """The shipped en>crk corpus (genuine morphodict entries), without its analyzer, copied
    outside the package."""
    data = json.loads((CORPORA / "eng-crk-morphodict-vocab.json").read_text(encoding="utf-8"))
    data["dataset"].pop("language_resources", None)
    path = tmp_path / "crk.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def run(pytester, corpus, method, *args):
    card_path = pytester.path / "card.json"
    card_path.unlink(missing_ok=True)
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        f"--mteval-run-card={card_path}", "--mteval-no-cache", *args,
    )  # fmt: skip
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.exists() else None
    return result, card


def rows(card):
    return {
        r["entry_id"]: {k: v for k, v in r.items() if k not in ROW_TIMING} for r in card["results"]
    }


@needs_node
def test_the_two_runtime_method_gives_the_same_card_from_python_and_node(pytester, crk_corpus):
    cards = {}
    for runtime in ("python", "node"):
        result, card = run(
            pytester, crk_corpus, LOOKUP, f"--mteval-runtime={runtime}",
            f"--mteval-method-card={LOOKUP / 'method_card.json'}",
        )  # fmt: skip
        assert card is not None, result.stderr.str()
        assert card["method_card"]["method_id"] == "lookup"
        assert card["runner"]["runtime"] == runtime
        assert card["runner"]["protocol"] == 1
        cards[runtime] = card
    python, node = cards["python"], cards["node"]
    assert rows(python) == rows(node)
    assert len(python["results"]) == 547
    scores = {k: v for k, v in python["scores"].items() if k not in TIMING}
    assert scores == {k: v for k, v in node["scores"].items() if k not in TIMING}
    # the predictions are word-list lookups, scored as sacrebleu scores them
    data = json.loads(crk_corpus.read_text(encoding="utf-8"))["entries"]
    reference = {str(e["id"]): e["reference"] for e in data}
    for key, row in list(rows(node).items())[:40]:
        assert row["chrf_score"] == pytest.approx(
            sacrebleu.sentence_chrf(row["predicted"], [reference[key]], word_order=2).score
        )
    about = rows(node)["1"]
    assert (about["predicted"], reference["1"]) == ("wayês", "wayês")  # 'about' in eng-crk.tsv
    assert node["method"]["code"] == python["method"]["code"]  # one folder, both entry points


def _node_lookup(sources):
    script = (
        "const m = require(process.argv[1]); m.prepare({ methodArgs: {} });"
        "m.translate(JSON.parse(require('fs').readFileSync(0, 'utf8')))"
        ".then((r) => process.stdout.write(JSON.stringify(r.map((x) => x.predicted))));"
    )
    done = subprocess.run(
        [NODE, "-e", script, str(LOOKUP / "translate.js")],
        input=json.dumps(sources), capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return json.loads(done.stdout)


@needs_node
def test_both_entry_points_tokenize_alike_over_five_languages():
    """The rule in lookup/README.md, over FLORES sentences in five languages (accents,
    apostrophes, hyphens, digits) and a few hand-picked edges."""
    sys.path.insert(0, str(LOOKUP))
    try:
        import translate as lookup_py
    finally:
        sys.path.remove(str(LOOKUP))
    sources = ["l’homme kâya well-known -x- 'quoted' e\u0301te\u0301 naïve 3rd x_y ǅemal Σίσυφος"]
    for name in ("eng-fra-flores-devtest.json", "fra-eng-flores-devtest.json"):
        data = json.loads((CORPORA / name).read_text(encoding="utf-8"))["entries"]
        sources += [e["source"] for e in data[:300]] + [e["reference"] for e in data[:300]]
    method = lookup_py.LookupMethod()
    method.table = lookup_py.read_wordlist(lookup_py.BUNDLED)
    python = [" ".join(method.table.get(w.lower(), w) for w in lookup_py.words(s)) for s in sources]
    assert _node_lookup(sources) == python
    assert (
        python[0] == "l’homme kâya well-known x quoted e\u0301te\u0301 naïve rd x y ǅemal Σίσυφος"
    )


def test_the_lookup_word_list_is_the_dictionary_methods():
    assert (LOOKUP / "eng-crk.tsv").read_bytes() == (
        METHODS / "dictionary" / "eng-crk.tsv"
    ).read_bytes()


def _champollion(folder, pairs, version=3):
    path = folder / "champollion.config.json"
    path.write_text(json.dumps({"version": version, "pairs": pairs}), encoding="utf-8")
    return path


@needs_node
def test_champollion_config_picks_the_method_of_the_corpus_pair(pytester, crk_corpus):
    app = pytester.path / "app"
    shutil.copytree(LOOKUP, app / "methods" / "crk-lookup-v1")
    config = _champollion(app, {
        "en:fr": {"methodPlugin": "no-such-method"},
        "en:crk": {"methodPlugin": "methods/crk-lookup-v1"},
    })  # fmt: skip
    result, card = run(pytester, crk_corpus, f"champollion:{config}", "--mteval-runtime=node")
    assert card is not None, result.stderr.str()
    assert card["method"]["name"] == "lookup"
    assert card["runner"]["runtime"] == "node"
    # a methodPlugin that is not a folder is a method installed by name (the shipped one here)
    _champollion(app, {"eng:crk": {"methodPlugin": "dictionary"}})
    result, card = run(pytester, crk_corpus, f"champollion:{app}")
    assert card is not None, result.stderr.str()
    assert card["method"]["name"] == "dictionary"


@pytest.mark.parametrize(
    ("pairs", "version", "says"),
    [
        ({"en:fr": {"methodPlugin": "x"}}, 3,
         "field 'pairs': no pair for the corpus's en:crk (pairs: en:fr)"),
        ({"en:crk": {"methodPlugin": "x"}}, 2,
         "field 'version': 2 is not a version this reader knows"),
        ({"en:crk": {}}, 3, "field 'pairs.en:crk.methodPlugin': a method name or folder"),
    ],
)  # fmt: skip
def test_a_champollion_config_naming_no_method_is_refused_by_file_and_field(
    pytester, crk_corpus, pairs, version, says
):
    config = _champollion(pytester.path, pairs, version)
    result, card = run(pytester, crk_corpus, f"champollion:{config}")
    assert card is None
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{config}: {says}" in result.stderr.str()


def _command_method(folder, script, **fields):
    method = folder / "cmd"
    method.mkdir()
    runner = method / "runner.py"
    runner.write_text(f"#!{sys.executable}\n{script}", encoding="utf-8")
    runner.chmod(0o755)
    manifest = {**MANIFEST, "runtime": ["./runner.py"], "entry_point": "runner.py", **fields}
    (method / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    return method


@pytest.mark.parametrize(
    ("first", "says"),
    [
        ('{"type": "hello", "protocol": 2, "runtime": "future"}',
         "its runner speaks runner protocol 2, this harness speaks 1"),
        ('{"type": "ready", "describe": {}}',
         "its runner sent a 'ready' message before announcing its protocol version"),
    ],
)  # fmt: skip
def test_a_runner_of_another_protocol_version_is_refused(pytester, tmp_path, first, says):
    method = _command_method(
        tmp_path, f"import sys, time\nprint({first!r}, flush=True)\ntime.sleep(60)\n"
    )
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps(envelope(flores_entries(2))), encoding="utf-8")
    result, card = run(pytester, corpus, method)
    assert card is None
    assert f"method 'probe' cannot start: {says}" in result.stderr.str()
    assert "docs/runner-protocol.md" in result.stderr.str()


def test_a_command_line_tool_wrapped_over_the_protocol_is_a_method(pytester, tmp_path):
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps(envelope(flores_entries(5))), encoding="utf-8")
    result, card = run(pytester, corpus, WRAPPERS / "cli-tool", "--mteval-batch-size=2")
    assert card is not None, result.stderr.str()
    assert card["runner"]["runtime"] == "command"
    expected = {str(e["id"]): e["source"].translate(str.maketrans("abcdefghijklmnopqrstuvwxyz",
                "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) for e in flores_entries(5)}  # fmt: skip
    assert {r["entry_id"]: r["predicted"] for r in card["results"]} == expected


class _Upper(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append(body)
        answer = json.dumps({"translations": [s.upper() for s in body["sources"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_an_http_service_wrapped_over_the_protocol_is_a_method(pytester, tmp_path):
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps(envelope(flores_entries(5))), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upper)
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/translate"
        result, card = run(
            pytester, corpus, WRAPPERS / "http-service", f"--mteval-method-arg=url={url}",
            "--mteval-batch-size=2",
        )  # fmt: skip
    finally:
        server.shutdown()
    assert card is not None, result.stderr.str()
    expected = {str(e["id"]): e["source"].upper() for e in flores_entries(5)}
    assert {r["entry_id"]: r["predicted"] for r in card["results"]} == expected
    assert sorted(len(body["sources"]) for body in server.seen) == [1, 2, 2]
    assert {body["target_language"] for body in server.seen} == {"fra"}
    # class A2: sandboxed with the host's network, which reaches the loopback service
    assert (card["runner"]["sandbox"], card["runner"]["isolated"]) == ("hostnet", True)


def test_a_node_method_without_node_is_refused_with_one_line(pytester, tmp_path, crk_corpus):
    corpus = crk_corpus
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mteval-corpus={corpus}",
         f"--mteval-method={LOOKUP}", "--mteval-runtime=node", "--mteval-sandbox=none"],
        capture_output=True, text=True, cwd=pytester.path, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-1] == (
        "ERROR: method.json of 'lookup': runtime node needs Node.js (node on PATH): "
        "apt-get install nodejs"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--mteval-runtime=node", "--mteval-runner=inprocess"],
         "method 'lookup' runs on node, in a runner process only: drop --mteval-runner=inprocess"),
        (["--mteval-runtime=ruby"], "--mteval-runtime must be one of python, node, got 'ruby'"),
    ],
)  # fmt: skip
def test_runtime_choices_that_cannot_run_are_refused(pytester, crk_corpus, args, says):
    result, card = run(pytester, crk_corpus, LOOKUP, *args)
    assert card is None
    assert says in result.stderr.str()


def test_a_runtime_the_method_does_not_ship_is_refused(pytester, crk_corpus):
    result, card = run(pytester, crk_corpus, METHODS / "dictionary", "--mteval-runtime=node")
    assert card is None
    assert "has no entry point for node (it ships: python)" in result.stderr.str()


@needs_node
def test_a_node_installed_outside_the_system_folders_is_shown_to_the_sandbox(
    pytester, crk_corpus, monkeypatch
):
    """A Node.js under /opt or ~/.nvm: the sandbox shows its installation, or it cannot start."""
    from test_sandbox import needs_namespaces

    from pytest_mteval.methods.loader import load_folder
    from pytest_mteval.run.runtimes import runner_command

    if needs_namespaces.args[0]:
        pytest.skip(needs_namespaces.kwargs["reason"])
    prefix = pytester.path / "opt" / "node"
    (prefix / "bin").mkdir(parents=True)
    try:
        os.link(NODE, prefix / "bin" / "node")
    except OSError:
        shutil.copy2(NODE, prefix / "bin" / "node")
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}:{os.environ['PATH']}")
    command = runner_command(load_folder(LOOKUP, load=False, runtime="node"))
    assert command is not None
    assert command.argv[0] == str(prefix / "bin" / "node")
    assert command.shown == [prefix]
    result, card = run(pytester, crk_corpus, LOOKUP, "--mteval-runtime=node",
                       "--mteval-sandbox=netns")  # fmt: skip
    assert card is not None, result.stderr.str()
    assert card["runner"]["sandbox"] == "netns"
    assert all(row["error"] is None for row in card["results"])
