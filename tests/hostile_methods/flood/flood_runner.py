"""A hostile runner speaking the runner protocol itself: it floods the harness's pipes.

``flood_runner.py stderr MIB``: one stderr line of MIB mebibytes before it is ready.
``flood_runner.py replies COUNT MIB``: with its first batch's answer, COUNT replies of MIB
mebibytes each for tickets the harness never sent, and a second answer to the real ticket.
Everything is written in 1 MiB pieces, so that this process itself stays small.
"""

import json
import os
import sys

CHUNK = 1 << 20


def send(data):
    _write_all(1, data)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:CHUNK]) :]


def big_reply(ticket, mib):
    """A result message of about ``mib`` MiB for ``ticket``, written piece by piece."""
    head = json.dumps({"type": "result", "ticket": ticket, "results": [{"id": 0, "predicted": ""}]})
    cut = head.index('""') + 1  # inside the empty prediction
    _write_all(1, head[:cut].encode())
    piece = b"x" * CHUNK
    for _ in range(mib):
        _write_all(1, piece)
    _write_all(1, head[cut:].encode() + b"\n")


def main():
    mode = sys.argv[1]
    send(b'{"type":"hello","protocol":1,"runtime":"flood"}\n')
    stdin = os.fdopen(0, "rb")
    stdin.readline()  # start
    if mode == "stderr":
        piece = b"e" * CHUNK
        for _ in range(int(sys.argv[2])):
            _write_all(2, piece)
        _write_all(2, b"\nlast words\n")
    send(b'{"type":"ready","describe":{"name":"flood"}}\n')
    flooded = False
    for line in stdin:
        message = json.loads(line)
        if message["type"] != "translate":
            return
        ticket = message["ticket"]
        if mode == "replies" and not flooded:
            flooded = True
            for extra in range(int(sys.argv[2])):
                big_reply(10_000 + extra, int(sys.argv[3]))
        results = [{"id": e["id"], "predicted": e["source"].upper()} for e in message["entries"]]
        answer = json.dumps({"type": "result", "ticket": ticket, "results": results})
        send(answer.encode() + b"\n")
        if mode == "replies":  # answered twice: the second is not asked for either
            send(answer.encode() + b"\n")


if __name__ == "__main__":
    main()
