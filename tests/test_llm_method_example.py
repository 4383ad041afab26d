"""The LLM method docs/methods.md shows, copied as a user copies it: it passes the audit, runs
sandboxed through the gateway against a chat server on 127.0.0.1, and puts each entry's text,
usage and cost on the card. A method that calls its endpoint itself gets one line saying the
sandbox has no network, not httpx's frames."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from chat_server import ChatServer, default_translate, default_usage
from conftest import REPO, envelope, flores_entries

from pytest_mteval.run.sandbox import sandbox_problem

PROBLEM = sandbox_problem()
needs_namespaces = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
PAGE = REPO / "docs" / "methods.md"
MTEVAL = Path(sys.executable).with_name("mteval")
#: USD per million tokens for the test model, so that the cost is checked by hand below.
INPUT_RATE, OUTPUT_RATE = 3.0, 15.0
NO_NETWORK = "the sandbox has no network: use ChatClient (docs/methods.md)"


def page_block(name: str) -> str:
    """The fenced block between ``<!-- name -->`` markers, indentation kept."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    block = lines[lines.index(f"<!-- {name} -->") + 1 : lines.index(f"<!-- /{name} -->")]
    assert block[0].startswith("```"), f"{name}: not a fenced block"
    assert block[-1] == "```", f"{name}: not a fenced block"
    return "\n".join(block[1:-1]) + "\n"


def documented_method(tmp_path: Path) -> Path:
    folder = tmp_path / "my-llm"
    folder.mkdir()
    (folder / "my_llm.py").write_text(page_block("llm-method"), encoding="utf-8")
    (folder / "method.json").write_text(page_block("llm-method-json"), encoding="utf-8")
    return folder


def run_session(tmp_path: Path, method: Path, upstream: str, count: int) -> tuple[str, dict]:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(envelope(flores_entries(count))), encoding="utf-8")
    prices = tmp_path / "prices.json"
    rates = {"input": INPUT_RATE, "output": OUTPUT_RATE, "source": "test"}
    prices.write_text(json.dumps({"models": {"test/model": rates}}), encoding="utf-8")
    card = tmp_path / "card.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--mteval-corpus={corpus}", f"--mteval-method={method}", "--mteval-sandbox=netns",
         f"--mteval-run-card={card}", "--mteval-no-cache", "--mteval-model=test/model",
         f"--mteval-prices={prices}", f"--mteval-method-arg=base_url={upstream}",
         "--mteval-method-arg=api_key_env=", "--tb=long"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert card.exists(), output[-3000:]
    return output, json.loads(card.read_text(encoding="utf-8"))


def test_the_documented_method_is_fifteen_lines_and_audits_clean(tmp_path):
    folder = documented_method(tmp_path)
    assert len(page_block("llm-method").splitlines()) <= 15
    code, report = audit(folder)
    assert code == 0, report
    assert report["contradictions"] == []
    assert [f["category"] for f in report["findings"]] == ["llm_client"]


def test_the_route_the_docs_used_to_give_is_a_contradiction(tmp_path):
    """httpx over the gateway's socket, as docs/security.md once said: the audit flags it,
    which is why the page shows ChatClient."""
    folder = documented_method(tmp_path)
    code_file = folder / "my_llm.py"
    code_file.write_text("import httpx\n" + code_file.read_text(encoding="utf-8"), "utf-8")
    code, report = audit(folder)
    assert code == 1
    (contradiction,) = report["contradictions"]
    assert contradiction.startswith("class A1 method has network (import httpx at my_llm.py:1)")
    assert "use ChatClient, docs/methods.md" in contradiction


def audit(folder: Path) -> tuple[int, dict]:
    proc = subprocess.run(
        [str(MTEVAL), "audit", "--json", str(folder)], capture_output=True, text=True, timeout=120
    )
    return proc.returncode, json.loads(proc.stdout)


@needs_namespaces
def test_the_documented_method_runs_sandboxed_through_the_gateway(tmp_path):
    method = documented_method(tmp_path)
    entries = flores_entries(3)
    with ChatServer() as server:
        output, card = run_session(tmp_path, method, server.url, len(entries))
    assert card["runner"]["gateway"]["forwarded"] == len(entries)
    assert card["runner"]["sandbox"] == "netns"
    by_id = {row["entry_id"]: row for row in card["results"]}
    for entry in entries:
        row = by_id[str(entry["id"])]
        assert row.get("error") is None, row
        sent = server_messages(server, entry["source"])
        assert [m["role"] for m in sent] == ["system", "user"]
        assert row["predicted"] == default_translate(sent)
        usage = default_usage(sent, default_translate(sent))
        assert row["usage"]["prompt_tokens"] == usage["prompt_tokens"]
        assert row["usage"]["completion_tokens"] == usage["completion_tokens"]
        expected = (
            usage["prompt_tokens"] * INPUT_RATE + usage["completion_tokens"] * OUTPUT_RATE
        ) / 1e6
        assert row["cost_usd"] == pytest.approx(expected)
    assert "Traceback" not in output


def server_messages(server: ChatServer, source: str) -> list[dict[str, str]]:
    """The messages the server received for the request whose user text is ``source``."""
    for seen in server.requests:
        messages = seen.body["messages"]
        if messages[-1]["content"] == source:
            return list(messages)
    raise AssertionError(f"no request carried {source!r}")


NAIVE = """import httpx


class Naive:
    async def translate(self, entries, config):
        async with httpx.AsyncClient() as http:
            reply = await http.post(config.method_args["base_url"] + "/chat/completions", json={})
        return [{"id": e["id"], "predicted": reply.text} for e in entries]
"""


@needs_namespaces
def test_a_method_calling_its_endpoint_itself_is_told_in_one_line(tmp_path):
    folder = documented_method(tmp_path)
    (folder / "my_llm.py").write_text(NAIVE, encoding="utf-8")
    manifest = json.loads((folder / "method.json").read_text(encoding="utf-8"))
    (folder / "method.json").write_text(
        json.dumps({**manifest, "entry_point": "my_llm:Naive"}), encoding="utf-8"
    )
    with ChatServer() as server:
        output, card = run_session(tmp_path, folder, server.url, 2)
    assert server.requests == []  # nothing reached the endpoint
    assert {row["error"] for row in card["results"]} == {NO_NETWORK}
    assert "httpx" not in output.replace("import httpx", "")
    assert "ConnectError" not in output
    assert "Traceback" not in output
    assert f"my_llm.py:7: {NO_NETWORK}" in output
