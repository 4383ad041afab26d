"""The runner process (``python -m pytest_mteval.run.runner_main``): builds one method and
translates the batches the harness sends it, over the JSON-lines protocol of ``runner_protocol.py``.

The protocol keeps private copies of stdin and stdout; the method's own ``print`` goes to
stderr and its ``input()`` reads nothing, so a method cannot garble the protocol by accident.
A batch that raises anything (``SystemExit`` and ``KeyboardInterrupt`` included) fails as a
batch; a method that wedges the event loop is killed by the harness at its deadline.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import threading
from typing import Any, BinaryIO

from pytest_mteval.methods.protocol import RunConfig, TranslationMethod
from pytest_mteval.run.method_ref import build_method, describe
from pytest_mteval.run.method_traceback import describe as describe_traceback
from pytest_mteval.run.method_traceback import raised
from pytest_mteval.run.runner_protocol import PROTOCOL_VERSION, ProtocolError, encode, read_message


class _Channel:
    """The protocol's ends, taken over from fds 0 and 1 before any method code runs."""

    def __init__(self) -> None:
        self.incoming: BinaryIO = os.fdopen(os.dup(0), "rb")
        self._out: BinaryIO = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)  # print() from the method lands on stderr
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(encode(message))
            self._out.flush()


def _plain(item: Any) -> Any:
    """A result item as it can travel; what JSON cannot carry (or would silently change, such
    as a number used as a key) becomes that entry's error, worded as the harness words it."""
    if not isinstance(item, dict):
        return item
    found = item.get("id")
    ident = found if isinstance(found, str | int) and not isinstance(found, bool) else None
    key = non_text_key(item)
    if key is not None:
        return {"id": ident, "error": f"entry {ident}: a result key is {key}, not text"}
    try:
        json.dumps(item, allow_nan=False)
        return item
    except (TypeError, ValueError, RecursionError) as exc:
        if "Out of range float" in str(exc):
            return item  # NaN and infinities: the harness's check names the field
        return {"id": ident, "error": f"entry {ident}: not plain JSON: {exc}"}


def non_text_key(value: Any, depth: int = 0) -> str | None:
    """The type name of the first dict key that is not text (JSON would turn it into text)."""
    if depth > 64:
        return None
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str):
                return type(key).__name__
            found = non_text_key(inner, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for inner in value:
            found = non_text_key(inner, depth + 1)
            if found is not None:
                return found
    return None


class _Runner:
    def __init__(self, channel: _Channel, method: TranslationMethod, config: RunConfig) -> None:
        self.channel = channel
        self.method = method
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.inflight: dict[int, asyncio.Task[None]] = {}

    def serve(self) -> None:
        threading.Thread(target=self._read, name="mteval-runner-read", daemon=True).start()
        try:
            self.loop.run_forever()
        except BaseException as exc:  # a method's task raised SystemExit/KeyboardInterrupt
            # Which batch's task it was is unknown: say it on stderr and exit; the harness
            # blames the batch it waits for and runs the others again on a fresh runner.
            print(
                f"method raised {type(exc).__name__}: {exc} in a task; the event loop stopped",
                file=sys.stderr,
                flush=True,
            )
            os._exit(3)

    def _read(self) -> None:
        while True:
            try:
                message = read_message(self.channel.incoming)
            except ProtocolError:
                message = None
            if message is None or message["type"] == "stop":
                os._exit(0)  # the harness is gone or done: nothing here is worth keeping
            if message["type"] == "translate":
                self.loop.call_soon_threadsafe(self._spawn, message)

    def _spawn(self, message: dict[str, Any]) -> None:
        ticket = int(message["ticket"])
        self.inflight[ticket] = self.loop.create_task(self._batch(ticket, message["entries"]))

    async def _batch(self, ticket: int, entries: list[Any]) -> None:
        timeout_s = self.config.timeout_s
        reply: dict[str, Any] = {"ticket": ticket}
        try:
            async with asyncio.timeout(timeout_s) as scope:
                raw = await self.method.translate(entries, self.config)
        except TimeoutError as exc:
            own = not scope.expired()
            reply["error"] = (
                f"method raised TimeoutError: {exc}"
                if own and str(exc)
                else f"timeout: method did not return within {timeout_s:g}s"
            )
        except BaseException as exc:  # SystemExit, KeyboardInterrupt too: they end one batch
            reply["error"] = raised(exc)
            reply["traceback"] = describe_traceback(exc)
        else:
            if isinstance(raw, list):
                reply["results"] = [_plain(item) for item in raw]
            else:
                reply["error"] = f"method returned {type(raw).__name__}, not a list"
        self.inflight.pop(ticket, None)
        self.channel.send({"type": "error" if "error" in reply else "result", **reply})


def main() -> None:
    if "--supervised" in sys.argv[1:]:
        from pytest_mteval.run.supervisor import supervise

        supervise()  # returns in the runner; its parent stays behind to end what it starts
    channel = _Channel()
    channel.send({"type": "hello", "protocol": PROTOCOL_VERSION, "runtime": "python"})
    start = read_message(channel.incoming)
    if start is None or start.get("type") != "start":
        os._exit(2)
    try:
        config = RunConfig(**start["config"])
        # bytecode the method's folder carries is not what its code hash covers: from here on
        # Python looks for cached bytecode only in a fresh private folder, so every module the
        # method brings is compiled from the source that was hashed
        sys.pycache_prefix = tempfile.mkdtemp(prefix="mteval-pyc-")
        method = build_method(start["method"], config)
        prepare = getattr(method, "prepare", None)
        if callable(prepare):
            prepare(config)
        check = getattr(method, "preflight", None)
        if start.get("preflight") and callable(check):
            check(config)  # the method's own configuration check (key, model, files, endpoint)
        if not callable(getattr(method, "translate", None)):
            raise TypeError("the method has no translate(entries, config)")
        description = describe(method, config)
    except BaseException as exc:  # any failure to start is one line for the harness
        said = str(exc) if isinstance(exc, Exception) and str(exc) else repr(exc)
        channel.send({"type": "fatal", "error": said})
        sys.stderr.flush()
        os._exit(2)
    channel.send({"type": "ready", "describe": description})
    _Runner(channel, method, config).serve()


if __name__ == "__main__":
    main()
