#!/usr/bin/env python3
"""A method that is an HTTP service (in any language) as a runner of its own over the runner
protocol (docs/runner-protocol.md): each batch is one POST of ``{"sources", "source_language",
"target_language"}`` to the method arg ``url``, answered by ``{"translations": [...]}``."""

import json
import sys
import urllib.request
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


send({"type": "hello", "protocol": 1, "runtime": "command"})
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        config = message["config"]
        url = config["method_args"]["url"]
        send({"type": "ready", "describe": {"class_name": "http-service", "cacheable": False}})
    elif message["type"] == "translate":
        entries, ticket = message["entries"], message["ticket"]
        body = {"sources": [e["source"] for e in entries],
                "source_language": config["source_language"],
                "target_language": config["target_language"]}  # fmt: skip
        request = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=config["timeout_s"]) as response:
                translations = json.load(response)["translations"]
        except Exception as exc:  # the whole batch fails, saying why
            send({"type": "error", "ticket": ticket, "error": f"{url}: {exc}"})
            continue
        results = [
            {"id": e["id"], "predicted": t} for e, t in zip(entries, translations, strict=False)
        ]
        send({"type": "result", "ticket": ticket, "results": results})
    elif message["type"] == "stop":
        break
