"""A Node.js method in the sandbox: the same walls as a Python one (no corpus file, no host
loopback, no DNS, no key in any environment it can read) and the same one way out, the LLM
gateway, which it reaches over the socket the harness hands it."""

from __future__ import annotations

import json
import socket

import pytest
from chat_server import ChatServer
from conftest import envelope, flores_entries
from methods_for_tests import needs_node, write_node_probe
from test_sandbox import GATEWAY_DEPENDENCY, KEY, needs_namespaces

pytest_plugins = ["pytester"]

#: Tries every way out it knows, then translates through the gateway; reports each attempt.
NODE_THIEF = r"""
const fs = require('fs');
const http = require('http');
const net = require('net');
const dns = require('dns').promises;

const attempt = async (action) => {
  try {
    return `got: ${await action()}`;
  } catch (error) {
    return `denied: ${error.code || error.message}`;
  }
};

function viaGateway(socketPath, model, text) {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: text }] });
  return new Promise((resolve, reject) => {
    const request = http.request({
      socketPath, path: '/v1/chat/completions', method: 'POST',
      headers: { 'content-type': 'application/json', host: 'mteval-gateway' },
    }, (response) => {
      let data = '';
      response.on('data', (chunk) => { data += chunk; });
      response.on('end', () => resolve(JSON.parse(data).choices[0].message.content));
    });
    request.on('error', reject);
    request.end(body);
  });
}

module.exports = {
  async translate(sources, context) {
    const args = context.methodArgs;
    const attempts = {
      corpus_file: await attempt(() => fs.readFileSync(args.corpus, 'utf8').length),
      connect: await attempt(() => new Promise((resolve, reject) => {
        const s = net.connect(Number(args.port), '127.0.0.1', () => {
          s.end();
          resolve('connected');
        });
        s.on('error', reject);
      })),
      upstream: await attempt(() => new Promise((resolve, reject) => {
        http.get(args.upstream, (r) => resolve(r.statusCode)).on('error', reject);
      })),
      dns: await attempt(() => dns.lookup('example.com').then((r) => r.address)),
    };
    const seen = { env: JSON.stringify(process.env) };
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try { seen[`proc${pid}`] = fs.readFileSync(`/proc/${pid}/environ`, 'latin1'); } catch {}
    }
    const out = [];
    for (const source of sources) {
      const predicted = await viaGateway(args.gateway_socket, context.model, source);
      out.push({ predicted, metadata: { attempts, seen } });
    }
    return out;
  },
};
"""


@needs_node
@needs_namespaces
def test_a_sandboxed_node_method_reaches_only_the_gateway(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("MTEVAL_TEST_KEY", KEY)
    corpus = tmp_path / "six.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    method = write_node_probe(
        pytester.path, NODE_THIEF, dependency_class="A1", dependencies=[GATEWAY_DEPENDENCY]
    )
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    card_path = pytester.path / "card.json"
    with ChatServer() as server:
        result = pytester.runpytest(
            f"--mteval-corpus={corpus}", f"--mteval-method={method}", "--mteval-sandbox=netns",
            f"--mteval-run-card={card_path}", "--mteval-no-cache", "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}",
            "--mteval-method-arg=api_key_env=MTEVAL_TEST_KEY",
            f"--mteval-method-arg=corpus={corpus}", f"--mteval-method-arg=upstream={server.url}",
            f"--mteval-method-arg=port={listener.getsockname()[1]}",
        )  # fmt: skip
        seen = list(server.requests)
    card = json.loads(card_path.read_text(encoding="utf-8"))
    assert card["runner"]["sandbox"] == "netns"
    assert card["runner"]["runtime"] == "node"
    sources = {str(e["id"]): e["source"] for e in flores_entries(6)}
    for row in card["results"]:
        assert row["error"] is None, row["error"]
        assert row["predicted"] == f"<tr>{sources[row['entry_id']]}</tr>"  # the gateway's answer
    attempts = card["results"][0]["metadata"]["attempts"]
    for attack in ("corpus_file", "connect", "upstream", "dns"):
        assert attempts[attack].startswith("denied: "), (attack, attempts[attack])
    # the upstream saw the gateway's requests only, with the key only the gateway holds
    assert len(seen) == 6
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in seen)
    assert card["runner"]["gateway"]["forwarded"] == 6
    assert KEY not in card_path.read_text(encoding="utf-8")
    assert any(name.startswith("proc") for name in card["results"][0]["metadata"]["seen"])
    listener.settimeout(0)
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected to the host's loopback
    listener.close()
    result.assert_outcomes(passed=6)
