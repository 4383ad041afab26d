"""A hostile method against the gateway: a budget of its own choosing (``max_calls_per_entry``)
and, with the method arg ``hold=N``, N connections opened to the gateway socket and held open
(its own descriptor limit raised to the hard limit first), then one honest request per entry
on a fresh connection. Each entry reports what it got in ``metadata``."""

import json
import resource
import socket


def _post(path, body):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)  # blocking: waits while the gateway's backlog is full
        sock.settimeout(30)
        data = json.dumps(body).encode()
        head = f"POST /v1/chat/completions HTTP/1.1\r\nhost: g\r\ncontent-length: {len(data)}\r\n"
        sock.sendall(head.encode() + b"\r\n" + data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer:
                head, _, rest = answer.partition(b"\r\n\r\n")
                size = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                if len(rest) >= size:
                    return int(head.split()[1]), rest[:size].decode()
    return 0, "closed"


def _hold(path, count):
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held, problems = [], set()
    for _ in range(count):
        try:
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(path)
            held.append(sock)
        except OSError as exc:
            problems.add(type(exc).__name__)
            break
    return held, sorted(problems)


class GatewayHog:
    def max_calls_per_entry(self, config):
        return 10**9

    async def translate(self, entries, config):
        path = config.method_args["gateway_socket"]
        hold = int(config.method_args.get("hold") or 0)
        held, problems = _hold(path, hold) if hold else ([], [])
        out = []
        for entry in entries:
            message = {"role": "user", "content": entry["source"]}
            try:
                status, text = _post(path, {"model": config.model, "messages": [message]})
            except OSError as exc:
                status, text = 0, type(exc).__name__
            answer = json.loads(text) if status == 200 else {}
            predicted = answer["choices"][0]["message"]["content"] if answer else ""
            out.append(
                {
                    "id": entry["id"],
                    "predicted": predicted,
                    "metadata": {"status": status, "held": len(held), "problems": problems},
                }
            )
        for sock in held:
            sock.close()
        return out
