"""The plain runner's supervisor: the process the harness starts, which forks the runner and
outlives it, so that every process the method started dies with the run.

A process-group kill misses a child that called ``setsid()``; as a child subreaper the
supervisor adopts such orphans, and when the runner ends (or the harness sends SIGTERM on a
timeout) it SIGKILLs every child it has until none is left, then exits as the runner did.
Under the sandbox the PID namespace does this job and there is no supervisor.

Where the kernel allows it the plain runner gets a PID namespace too: the process the harness
started stays outside as a stand-in, and the supervisor becomes the namespace's init. The
method then cannot signal the harness or its supervisor, and the kernel ends every process in
the namespace when the supervisor exits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

from pytest_mteval.run.hardening import (
    become_subreaper,
    children,
    drop_privileges,
    enter_pid_namespace,
)

#: How long the supervisor keeps killing descendants that keep appearing.
KILL_FOR_S = 5.0


def supervise() -> None:
    """Fork; return in the child (the runner); the parent never returns."""
    namespaced = enter_pid_namespace()
    if namespaced:
        _stand_in()  # returns in the namespace's first process, the supervisor
    become_subreaper()
    drop_privileges()  # before the fork: neither process keeps root's capabilities
    runner = os.fork()
    if runner == 0:
        return
    _let_go_of_the_pipes()
    told: list[int] = []

    def on_term(signum: int, _frame: object) -> None:
        told.append(signum)
        with contextlib.suppress(OSError):
            os.kill(runner, signal.SIGKILL)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    status = _wait_for(runner)
    if not namespaced:  # in a namespace the kernel ends them all when this process exits;
        kill_descendants()  # and /proc, the host's, would name other processes than its PIDs
    if told or status is None:
        os.kill(os.getpid(), signal.SIGKILL)  # killed, as the harness asked
        os._exit(137)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)  # the harness reads the runner's own death
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def _let_go_of_the_pipes() -> None:
    """The protocol's pipes are the runner's alone: its end is their end."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _stand_in() -> None:
    """Fork the namespace's first process and return in it; this one, outside, passes the
    harness's SIGTERM in and exits as it did. An init cannot die of its own signal, so its
    exit code 128+N stands for signal N here, as bubblewrap's does."""
    inside = os.fork()
    if inside == 0:
        return
    _let_go_of_the_pipes()
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def pass_in(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(inside, signum)

    signal.signal(signal.SIGTERM, pass_in)
    status = _wait_for(inside)
    code = os.waitstatus_to_exitcode(status) if status is not None else -signal.SIGKILL
    sig = -code if code < 0 else code - 128 if code > 128 else 0
    if sig:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(code if code >= 0 else 128 + sig)


def _wait_for(runner: int) -> int | None:
    """The runner's wait status, reaping adopted orphans that end meanwhile."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return None
        if pid == runner:
            return status


def kill_descendants() -> None:
    """SIGKILL every child (adopted ones included) until none is left."""
    deadline = time.monotonic() + KILL_FOR_S
    while time.monotonic() < deadline:
        for pid in children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
