"""The harness's side of a runner process: start it, hand it batches, wait for each within
its deadline, and kill it (its whole process group) when it overruns, exits or garbles.

A batch's entries become errors that say what happened (timeout and kill, exit code, broken
protocol, the method's traceback); the next batch gets a fresh runner. The batch waited for
takes the blame; other batches in flight in the same process run once more on the fresh
runner, since they may have done nothing wrong.

What a runner can make the harness hold is bounded: one message at a time (a line of at most
``MAX_LINE_BYTES``), a few short stderr lines, and replies only to tickets it was sent and
has not answered yet; anything else is dropped as it arrives and counted.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.loader import MethodLoadError
from pytest_mteval.methods.protocol import MethodResult, RunConfig
from pytest_mteval.run.batch_translation import PendingBatch, all_failed, check_results, method_view
from pytest_mteval.run.method_ref import MethodRef
from pytest_mteval.run.method_traceback import from_reply
from pytest_mteval.run.runner_protocol import (
    MAX_STDERR_LINE_BYTES,
    ProtocolError,
    encode,
    hello_problem,
    read_message,
)

GRACE_S = 1.0  # how long past a batch's timeout the runner may take to answer
START_TIMEOUT_S = 120.0  # how long a runner may take to import and build its method
KILL_WAIT_S = 6.0  # how long a supervisor may take to end all the method started


@dataclass(frozen=True)
class Launch:
    """How to start a runner: its command line, environment and folder, and a label."""

    argv: list[str]
    env: dict[str, str] | None = None
    cwd: str | None = None
    label: str = "process"
    supervised: bool = False  # under its supervisor (``--supervised``): SIGTERM ends it all


class RunnerProcess:
    """One runner child, its replies by ticket, and the last lines of its stderr."""

    def __init__(self, launch: Launch) -> None:
        self.supervised = launch.supervised
        self.sandboxed = launch.label.startswith("sandbox")
        self.proc = subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=launch.env,
            cwd=launch.cwd,
            start_new_session=True,  # a Ctrl-C meant for the harness never reaches it
        )
        self.cond = threading.Condition()
        self.replies: dict[int, dict[str, Any]] = {}
        self.first: dict[str, Any] | None = None  # its first message: the protocol's hello
        self.ready: dict[str, Any] | None = None
        self.fatal: str | None = None
        self.gone = False
        self.killed: str | None = None
        self.blamed = False  # one batch already took the blame for this process's end
        self.broken: str | None = None
        self.tail: deque[str] = deque(maxlen=5)
        #: Tickets sent to this runner and not answered yet: the only replies it may send.
        self.asked: set[int] = set()
        #: Replies it sent unasked (dropped), and the first such ticket.
        self.unasked = 0
        self.unasked_ticket: object = None
        for target in (self._read_out, self._read_err):
            threading.Thread(target=target, daemon=True).start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        try:
            while (message := read_message(self.proc.stdout)) is not None:
                with self.cond:
                    self._take(message)
                    self.cond.notify_all()
        except (ProtocolError, OSError, ValueError) as exc:
            self.broken = f"runner broke the protocol: {exc}"
            self.kill(self.broken)
        with self.cond:
            self.gone = True
            self.cond.notify_all()

    def _take(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self.first is None:
            self.first = message
        elif kind == "ready":
            self.ready = message.get("describe") or {}
        elif kind == "fatal":
            self.fatal = str(message.get("error"))[:2000]
        elif kind in ("result", "error"):
            ticket = message.get("ticket")
            if isinstance(ticket, int) and ticket in self.asked:
                self.asked.discard(ticket)
                self.replies[ticket] = message
            else:  # never sent, or answered already: dropped, whatever its size
                self.unasked += 1
                if self.unasked_ticket is None:
                    self.unasked_ticket = str(ticket)[:40]

    def take_unasked(self) -> str | None:
        """One line on the replies dropped since last asked, or None."""
        with self.cond:
            count, self.unasked = self.unasked, 0
            ticket, self.unasked_ticket = self.unasked_ticket, None
        if not count:
            return None
        return f"runner sent {count} replies it was not asked for (first: ticket {ticket}); dropped"

    def _read_err(self) -> None:
        """Keep the start of each stderr line (the rest is read and dropped as it comes)."""
        assert self.proc.stderr is not None
        stream = self.proc.stderr
        while raw := stream.readline(MAX_STDERR_LINE_BYTES):
            line = raw.decode("utf-8", "replace").rstrip()
            while not raw.endswith(b"\n") and raw:  # a longer line: skip to its end
                raw = stream.readline(MAX_STDERR_LINE_BYTES)
            if line:
                self.tail.append(line[:300])

    def send(self, message: dict[str, Any]) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(encode(message))
            self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def wait_for(self, ready: Any, deadline: float) -> bool:
        """Wait until ``ready()`` or the process is gone or ``deadline`` (monotonic) passes."""
        with self.cond:
            while not ready() and not self.gone:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return bool(ready())

    def kill(self, why: str) -> None:
        """SIGKILL to the process group; a supervised runner is first told (SIGTERM) to end
        all the method started, in new sessions too, which a group kill misses."""
        if self.killed is None:
            self.killed = why
        if self.supervised and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(KILL_WAIT_S)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)

    def stop(self) -> None:
        self.send({"type": "stop"})
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(0.5)
        self.kill("stopped by the harness")
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def exit_note(self) -> str:
        """Why the process is gone, for the entries it took with it: its own exit code or
        signal when it ended by itself, else why the harness killed it."""
        if self.broken:
            return self.broken
        try:
            code: int | None = self.proc.wait(2)
        except subprocess.TimeoutExpired:
            code = None
        last = f" (stderr: {self.tail[-1]})" if self.tail else ""
        if code is not None and code > 128 and self.sandboxed:  # bwrap's 128+N: signal N
            code = 128 - code
        if code is not None and code >= 0:
            return f"runner process exited with code {code} while translating{last}"
        if self.killed and code in (None, -signal.SIGKILL):
            return f"runner process killed: {self.killed}"
        return f"runner process died of signal {-(code or 0)} while translating{last}"


@dataclass
class ProcessBackend:
    """Batches translated by runner processes, one at a time, restarted when one is lost."""

    launch: Launch
    ref: MethodRef
    runner_config: RunConfig
    name: str = "method"
    #: Run the method's preflight in the first runner (the controller's, before any item).
    preflight: bool = False
    description: dict[str, Any] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    restarts: int = 0
    _process: RunnerProcess | None = None
    _owner: dict[int, RunnerProcess] = field(default_factory=dict)
    _retried: set[int] = field(default_factory=set)
    _tickets: itertools.count[int] = field(default_factory=itertools.count)
    _hard_deadline: float | None = None

    def start(self, launched: RunnerProcess | None = None) -> dict[str, Any]:
        """Build the method in a new runner (or one ``launched`` ahead); MethodLoadError if not."""
        process = launched or RunnerProcess(self.launch)
        config, preflight = self.runner_config.to_json(), self.preflight
        message = {"type": "start", "method": self.ref, "config": config, "preflight": preflight}
        deadline = time.monotonic() + START_TIMEOUT_S
        said = process.wait_for(lambda: process.first is not None, deadline)
        if said and (problem := hello_problem(process.first)) is not None:
            process.kill("spoke another protocol")
            raise MethodLoadError(f"method {self.name!r} cannot start: {problem}")
        ok = said and process.send(message)
        ok = ok and process.wait_for(lambda: process.ready is not None or process.fatal, deadline)
        if not ok or process.ready is None:
            late = f"no answer within {START_TIMEOUT_S:g}s"
            why = process.fatal or (process.exit_note() if process.gone else late)
            process.kill("failed to start")
            # the method's own refusal reads the same in every runner mode; a runner that
            # died or hung says where
            where = "" if process.fatal else f" in its runner ({self.launch.label})"
            raise MethodLoadError(f"method {self.name!r} cannot start{where}: {why}")
        self._process = process
        self.preflight = False  # once per run: a fresh runner after a kill skips it
        self.description = process.ready
        return process.ready

    def submit(self, entries: Sequence[Entry], config: RunConfig) -> PendingBatch:
        pending = PendingBatch(list(entries), None, time.perf_counter(), config.timeout_s)
        if entries:
            self._send(pending)
        return pending

    def _send(self, pending: PendingBatch, attempt: int = 0) -> None:
        try:
            process = self._current()
        except MethodLoadError as exc:
            pending.failure = str(exc)
            return
        pending.started = time.perf_counter()  # a fresh runner's start is not the batch's time
        ticket = next(self._tickets)
        pending.ticket = ticket
        self._owner[ticket] = process
        with process.cond:
            process.asked.add(ticket)
        entries = [method_view(e) for e in pending.entries]
        if process.send({"type": "translate", "ticket": ticket, "entries": entries}):
            return
        # the runner died since the last batch (another batch's doing): a fresh one, once
        process.kill("its input closed")
        self._process = None
        self.restarts += 1
        if attempt == 0:
            self._send(pending, attempt=1)
        else:
            pending.failure = process.exit_note()

    def _current(self) -> RunnerProcess:
        # a runner the harness killed counts as gone at once: its reader thread may not have
        # seen the end of its output yet, and a batch sent to it would be lost
        process = self._process
        if process is None or process.gone or process.killed is not None:
            if process is not None:
                self.restarts += 1
            self.start()
        assert self._process is not None
        return self._process

    def collect(self, pending: PendingBatch) -> tuple[dict[str, MethodResult], list[str]]:
        entries = pending.entries
        if pending.failure is not None:
            return all_failed(entries, pending.failure), []
        if pending.ticket is None:
            return {}, []
        ticket = pending.ticket
        process = self._owner.pop(ticket)
        deadline = time.monotonic() + pending.timeout_s + GRACE_S
        deadline -= time.perf_counter() - pending.started
        if self._hard_deadline is not None:
            deadline = min(deadline, self._hard_deadline)
        answered = process.wait_for(lambda: ticket in process.replies, deadline)
        dropped = process.take_unasked()
        if dropped is not None:  # the batch keeps its own answer; the card says what came
            self.events.append(f"batch of entry {entries[0].key!r}: {dropped}")
        if answered:
            reply = process.replies.pop(ticket)
            if reply["type"] == "error":
                error, where = str(reply.get("error"))[:2000], from_reply(reply.get("traceback"))
                return all_failed(entries, error, where), []
            return check_results(
                entries, reply.get("results"), time.perf_counter() - pending.started
            )
        if process.blamed and ticket not in self._retried and self._hard_deadline is None:
            self._retried.add(ticket)  # lost with another batch's runner: once more
            self._send(pending)
            return self.collect(pending)
        process.blamed = True
        if process.gone:
            message = process.exit_note()
        elif self._hard_deadline is not None and time.monotonic() >= self._hard_deadline:
            message = "not finished: the run was interrupted"
            process.kill(message)
        else:
            message = (
                f"timeout: method did not return within {pending.timeout_s:g}s; "
                "its runner process was killed"
            )
            process.kill(f"a batch overran its {pending.timeout_s:g}s timeout")
        self.events.append(f"batch of entry {entries[0].key!r}: {message}")
        return all_failed(entries, message), []

    def limit_waits(self, seconds: float) -> None:
        self._hard_deadline = time.monotonic() + seconds

    def close(self) -> None:
        if self._process is not None:
            self._process.stop()
            self._process = None
