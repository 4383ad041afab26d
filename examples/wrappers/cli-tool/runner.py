#!/usr/bin/env python3
"""A command-line translator (one source line in on stdin, one translation out on stdout) as a
method: a runner of its own over the runner protocol (docs/runner-protocol.md). The tool is
the rest of the command line: ``"runtime": ["./runner.py", "TOOL", "ARG", ...]``."""

import json
import subprocess
import sys
from typing import Any

tool = sys.argv[1:]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


send({"type": "hello", "protocol": 1, "runtime": "command"})
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        send({"type": "ready", "describe": {"class_name": tool[0], "cacheable": False}})
    elif message["type"] == "translate":
        entries, ticket = message["entries"], message["ticket"]
        lines = "".join(" ".join(e["source"].splitlines()) + "\n" for e in entries)
        done = subprocess.run(tool, input=lines, capture_output=True, text=True)
        if done.returncode != 0:
            error = f"{tool[0]} exited with code {done.returncode}: {done.stderr.strip()[-300:]}"
            send({"type": "error", "ticket": ticket, "error": error})
            continue
        out = done.stdout.split("\n")
        results = [{"id": e["id"], "predicted": out[i] if i < len(out) else None}
                   for i, e in enumerate(entries)]  # fmt: skip
        send({"type": "result", "ticket": ticket, "results": results})
    elif message["type"] == "stop":
        break
