"""Method folders written into a test's directory: probes that record what they receive."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

MANIFEST = {
    "name": "probe",
    "method_id": "probe",
    "class": "custom-plugin",
    "entry_point": "probe:Probe",
    "supported_pairs": ["*"],
    "dependency_class": "S",
    "dependencies": [],
}

#: A method that logs every call (pid, ids, full entries) to calls.jsonl beside its folder (not
#: inside it: the folder's content is part of the method's cache fingerprint) and
#: answers with the source upper-cased, or misbehaves as its method args ask.
PROBE = """
import asyncio, json, os, time, uuid
from pathlib import Path

LOG = Path(__file__).parent.with_name("calls.jsonl")
#: This process, told apart from any other: runners in PID namespaces share pids.
PROCESS = uuid.uuid4().hex

class Probe:
    async def translate(self, entries, config):
        started = time.monotonic()
        mode = config.method_args.get("mode", "upper")
        if mode == "slow":
            await asyncio.sleep(0.3)
        call = {"pid": os.getpid(), "process": PROCESS, "entries": entries,
                "concurrency": config.concurrency, "start": started, "end": time.monotonic()}
        with LOG.open("a", encoding="utf-8") as log:
            log.write(json.dumps(call) + "\\n")
        if mode == "raise":
            raise RuntimeError("backend exploded")
        if mode == "upstream-timeout":
            raise TimeoutError("upstream connect timed out after 5s")
        if mode == "sleep":
            await asyncio.sleep(60)
        if mode == "block":
            time.sleep(4)
        out = [
            {"id": e["id"], "predicted": e["source"].upper(), "latency_s": 0.01} for e in entries
        ]
        if mode == "not-json":
            out[0]["metadata"] = {"seen": {1, 2}}
            out[1]["latency_s"] = float("nan")
        if mode == "ghost":
            out.append({"id": "ghost", "predicted": "boo"})
        if mode == "mangle":
            out[0]["predicted"] = 42
            out[1]["id"] = "not-in-batch"
            out.append(dict(out[2]))
        return out
"""


def write_probe(directory: Path, source: str = PROBE) -> Path:
    folder = directory / "probe"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "method.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    (folder / "probe.py").write_text(source, encoding="utf-8")
    return folder


def calls(folder: Path) -> list[dict]:
    log = folder.parent / "calls.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


#: Node.js is Debian's nodejs; tests of node methods skip without it.
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node (Debian's nodejs) is not installed")


def write_node_probe(directory: Path, source: str, **manifest: Any) -> Path:
    """A method folder whose code is ``probe.js`` in champollion's shape, run by node."""
    folder = directory / "probe"
    folder.mkdir(parents=True, exist_ok=True)
    fields = {**MANIFEST, "runtime": "node", "entry_point": "probe.js", **manifest}
    (folder / "method.json").write_text(json.dumps(fields), encoding="utf-8")
    (folder / "probe.js").write_text(source, encoding="utf-8")
    return folder
