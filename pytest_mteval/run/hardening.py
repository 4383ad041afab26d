"""Linux process controls that keep a plain (unsandboxed) runner away from the harness.

- The harness is made non-dumpable while a run is on (``PR_SET_DUMPABLE`` 0): the kernel then
  refuses ``/proc/<harness>/mem``, ``environ`` and ptrace to other processes of the same user,
  which would otherwise read every reference from its memory. It is set back when the run
  ends, so a pytest process that runs several sessions (pytester) is left as it was.
- A runner started as root gives up every capability (bounding set included) and sets
  ``no_new_privs`` before method code runs: without ``CAP_SYS_PTRACE`` a root process cannot
  read a non-dumpable process's memory either, and cannot get the capabilities back by exec.
- The runner's supervisor is a child subreaper: a process the method starts in a new session
  (``setsid``, double fork) is re-parented to it, not to init, and killed with the run.
- Where the kernel allows, the supervisor and the runner live in a new PID namespace: a PID
  there names no process outside, so the method cannot signal the harness (nor, as its init,
  the supervisor), and every process in it dies with the supervisor.

Everything here is a no-op (returning False) where the calls do not exist.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
CLONE_NEWPID = 0x20000000
CLONE_NEWUSER = 0x10000000


@lru_cache(maxsize=1)
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


def _prctl(option: int, arg: int = 0, arg3: int = 0) -> int:
    libc = _libc()
    if libc is None:
        return -1
    return int(libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(arg3), 0, 0))


def is_dumpable() -> bool | None:
    """Whether this process is dumpable; None where that cannot be asked."""
    got = _prctl(PR_GET_DUMPABLE)
    return None if got < 0 else bool(got)


def set_dumpable(on: bool) -> bool:
    """Make this process dumpable or not; whether the kernel took it."""
    return _prctl(PR_SET_DUMPABLE, 1 if on else 0) == 0


def enter_pid_namespace() -> bool:
    """Put this process's next children in a new PID namespace; whether the kernel took it.
    Root asks directly; another user through a new user namespace mapping only itself."""
    libc = _libc()
    if libc is None:
        return False
    if int(libc.unshare(CLONE_NEWPID)) == 0:
        return True
    if os.geteuid() == 0:
        return False
    uid, gid = os.geteuid(), os.getegid()
    if int(libc.unshare(CLONE_NEWUSER | CLONE_NEWPID)) != 0:
        return False
    try:  # the same ids inside: files are reached exactly as before
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError:
        pass
    return True


def become_subreaper() -> bool:
    return _prctl(PR_SET_CHILD_SUBREAPER, 1) == 0


def drop_privileges() -> bool:
    """``no_new_privs``, and for root every capability gone for good; whether it held."""
    if _libc() is None:
        return False
    ok = _prctl(PR_SET_NO_NEW_PRIVS, 1) == 0
    if os.geteuid() != 0 and not _capabilities():
        return ok
    last = _last_capability()
    for cap in range(last + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice, all zero
    return ok and int(_libc().capset(header, data)) == 0


def _capabilities() -> bool:
    """Whether this process holds any capability (a user namespace's owner does)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith(("CapEff:", "CapPrm:")) and int(line.split()[1], 16):
            return True
    return False


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text().strip())
    except (OSError, ValueError):
        return 63


def children() -> list[int]:
    """This process's children (all threads'), from ``/proc``."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{os.getpid()}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            text = Path(f"/proc/{os.getpid()}/task/{tid}/children").read_text()
        except OSError:
            continue
        found += [int(pid) for pid in text.split()]
    return found
