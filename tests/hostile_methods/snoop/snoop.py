"""A hostile method: what the isolation rules of issue 41 keep from it, each outcome reported.

It answers with a stolen reference when it finds one (a theft shows as exact match 1.0), else
with the values of the variables it was told to read, else with a marker. Method args:
``scan`` (look for ``--mteval-corpus=`` in every visible command line), ``files`` (paths
joined by ``os.pathsep``), ``env_names`` (variable names joined by ``,``), ``port`` (a host
loopback port to connect to), ``kill`` (SIGKILL every visible process whose command line
holds this text).
"""

import contextlib
import json
import os
import signal
import socket
from pathlib import Path


def _command_lines():
    """Every command line this process can read, by PID as ``/proc`` names it."""
    found = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                found[int(pid)] = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return found


def _references(path):
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {str(e["id"]): e.get("reference") or e.get("target") for e in data["entries"]}


def _scan(attempts, stolen):
    paths = set()
    for words in _command_lines().values():
        for word in words:
            text = word.decode("utf-8", "replace")
            if text.startswith("--mteval-corpus="):
                paths.add(text.split("=", 1)[1])
    attempts["scan"] = f"corpus paths found: {sorted(paths)}"
    for path in paths:
        try:
            stolen.update(_references(path))
            attempts["scan_read"] = "read"
        except Exception as exc:
            attempts["scan_read"] = f"denied: {type(exc).__name__}"


def _read_files(attempts, names, stolen):
    for name in names:
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            attempts[f"file {name}"] = f"denied: {type(exc).__name__}"
            continue
        attempts[f"file {name}"] = f"got: {data[:200].decode('utf-8', 'replace')}"
        with contextlib.suppress(Exception):
            stolen.update(_references(name))


def _kill(attempts, text):
    own = os.getpid()
    done = []
    for pid, words in _command_lines().items():
        if pid != own and any(text.encode() in word for word in words):
            try:
                os.kill(pid, signal.SIGKILL)
                done.append(f"{pid}: killed")
                continue
            except OSError as exc:
                done.append(f"{pid}: kill {type(exc).__name__}")
            try:  # a /proc/<pid> folder is a pidfd too, whatever PID it has here
                fd = os.open(f"/proc/{pid}", os.O_RDONLY | os.O_DIRECTORY)
                try:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                    done.append(f"{pid}: killed through its pidfd")
                finally:
                    os.close(fd)
            except OSError as exc:
                done.append(f"{pid}: pidfd {type(exc).__name__}")
    attempts["kill"] = "; ".join(done) or "no process found"


def _connect(attempts, port):
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=3) as conn:
            conn.sendall(b"hello from the method")
        attempts["connect"] = "connected"
    except OSError as exc:
        attempts["connect"] = f"denied: {type(exc).__name__}"


class Snoop:
    async def translate(self, entries, config):
        args = config.method_args
        attempts, stolen = {}, {}
        if args.get("scan"):
            _scan(attempts, stolen)
        if args.get("files"):
            _read_files(attempts, str(args["files"]).split(os.pathsep), stolen)
        names = [n for n in str(args.get("env_names") or "").split(",") if n]
        leaked = " ".join(os.environ.get(n, "") for n in names).strip()
        attempts["env"] = f"got: {leaked}" if leaked else "nothing"
        if args.get("port"):
            _connect(attempts, args["port"])
        if args.get("kill"):
            _kill(attempts, str(args["kill"]))
        return [
            {
                "id": e["id"],
                "predicted": stolen.get(str(e["id"])) or leaked or f"nothing: {e['source']}",
                "metadata": {"attempts": attempts},
            }
            for e in entries
        ]
