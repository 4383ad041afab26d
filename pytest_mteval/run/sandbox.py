"""The sandbox: a runner process in new kernel namespaces, through Debian's bubblewrap.

The runner sees the system's read-only program folders, the Python installation, this
package, the method's folder and the files it was told about (analyzer, price table), all
read-only; a private ``/tmp``; its own ``/proc`` (no other process is visible); and, for an
A1 method, the LLM gateway's socket. It has no network interface but its own loopback (an A2
method keeps the host's network, which it declares), no environment but a few plain
variables and those the method declares, and none of: the corpus, the cards, the cache, the
baseline, the home folder, the keys the harness opens, folders that ``.pth`` files name,
``/etc`` beyond certificates and the loader's files.

bubblewrap is taken from one fixed system path, never from ``PATH``: a folder on ``PATH`` may
be writable by a method that ran before (an activated virtual environment's ``bin/``).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from collections.abc import Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import pytest_mteval
from pytest_mteval.errors import MtevalError
from pytest_mteval.run.runner_client import Launch
from pytest_mteval.shipped_corpora import SHIPPED_CORPORA

#: Where the gateway's socket folder appears inside the sandbox.
GATEWAY_DIR_INSIDE = "/run/mteval"
#: The only bubblewrap the harness runs: Debian's package installs it here.
BWRAP = Path("/usr/bin/bwrap")
#: The sandbox of a method without network (``netns``) and of an A2 one, which keeps the host's.
NO_NETWORK, HOST_NETWORK = "netns", "hostnet"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")
_ETC = ("/etc/ssl", "/etc/ca-certificates", "/etc/localtime", "/etc/ld.so.cache",
        "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")  # fmt: skip
#: What name resolution needs, shown only to a method that keeps the network (class A2).
_ETC_NETWORK = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
                "/etc/gai.conf", "/etc/services", "/etc/protocols")  # fmt: skip


class SandboxError(MtevalError):
    """The sandbox cannot be used for this run; one line says why."""


def _system_args() -> list[str]:
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in _ETC:
        args += ["--ro-bind-try", name, name]
    return args


def _base_args() -> list[str]:
    return [
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run",
        "--hostname", "mteval-sandbox", *_system_args(),
    ]  # fmt: skip


def untrusted_binary(binary: Path) -> str | None:
    """Why ``binary`` cannot be trusted to build the sandbox (missing, or it or a folder above
    it is not root's or is writable by others), else None."""
    try:
        real = binary.resolve(strict=True)
    except (OSError, RuntimeError):
        return f"bubblewrap is not installed at {binary}: apt-get install bubblewrap"
    for path in (real, *real.parents):
        try:
            info = os.stat(path)
        except OSError as exc:
            return f"{path} cannot be checked: {exc.strerror}"
        if info.st_uid != 0:
            return f"{path} is not owned by root, so {binary} cannot be trusted"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
            return f"{path} is writable by others, so {binary} cannot be trusted"
    if not stat.S_ISREG(os.stat(real).st_mode):
        return f"{binary} is not a file"
    return None


@lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """Why namespaces cannot be made here (no trusted bubblewrap, or the kernel refuses)."""
    untrusted = untrusted_binary(BWRAP)
    if untrusted is not None:
        return untrusted
    try:
        probe = subprocess.run(
            [str(BWRAP), *_base_args(), "--", "/bin/true"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if probe.returncode != 0:
        said = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"the kernel refuses new namespaces here: {said[-1] if said else probe.returncode}"
    return None


def python_paths() -> list[Path]:
    """What the runner needs to start Python and import this package and its dependencies:
    the installations (site folders inside them), this package's own folder and the site
    folders of its dependencies. No other folder a ``.pth`` file names: an editable install's
    line names a whole project, which may hold its keys and corpora. The runner starts with
    ``-I``, so no user site folder."""
    package = Path(pytest_mteval.__file__).resolve().parent
    found = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), package}
    found.add(Path(sys.executable).resolve().parent.parent)
    return sorted(found | dependency_sites())


@lru_cache(maxsize=1)
def dependency_sites() -> frozenset[Path]:
    """The site folders that hold this package's installed dependencies (their dist-info).

    A ``.pth`` line may have put such a folder on the path (a venv sharing another's
    packages): the runner imports from it, so it is shown. A project folder that an editable
    install's line names holds no dist-info of ours, so it stays hidden.
    """
    try:
        required = metadata.distribution("pytest-mteval").requires or []
    except metadata.PackageNotFoundError:
        return frozenset()
    found: set[Path] = set()
    for requirement in required:
        if "extra ==" in requirement:
            continue
        name = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
        try:
            found.add(Path(str(metadata.distribution(name).locate_file(""))).resolve())
        except metadata.PackageNotFoundError:
            continue
    return frozenset(found)


def sandbox_launch(
    method_dir: Path,
    readable: Sequence[Path],
    protected: Sequence[Path],
    gateway_dir: Path | None,
    env: dict[str, str],
    runner: Sequence[str] = (),
    network: bool = False,
) -> Launch:
    """The bwrap command line for one runner (``runner``, the Python one by default); SandboxError
    if a protected path would show. ``env`` is the runner's whole environment
    (run/runner_env.py), handed to bwrap itself and never on its command line, which other
    processes can read. ``network``: keep the host's network (an A2 method's)."""
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxError(f"--mteval-sandbox=netns: {problem}")
    shown = [*python_paths(), method_dir.resolve(), *(p.resolve() for p in readable)]
    # the shipped corpora, inside the package whose code the runner needs (a wheel install):
    # shown as an empty folder, with only the files the run names (an analyzer) bound back
    shipped = SHIPPED_CORPORA.resolve()
    hidden = [shipped] if any(shipped.is_relative_to(p) for p in shown) else []

    def is_hidden(target: Path) -> bool:
        return any(target == h or target.is_relative_to(h) for h in hidden)

    for secret in protected:
        target = secret.resolve()
        for path in shown:
            if is_hidden(target) and not is_hidden(path):
                continue  # under the empty folder, unless bound back itself
            if target == path or target.is_relative_to(path):
                raise SandboxError(
                    f"--mteval-sandbox=netns: {secret} is inside {path}, which the sandbox "
                    "shows to the method; move it elsewhere"
                )
    args = [str(BWRAP), *_base_args()]
    if network:
        args += ["--share-net"]
        for name in _ETC_NETWORK:
            args += ["--ro-bind-try", name, name]
    for path in shown:
        if path.exists() and not is_hidden(path):
            args += ["--ro-bind", str(path), str(path)]
    for folder in hidden:
        args += ["--tmpfs", str(folder)]
        for path in shown:
            if path.exists() and path.is_relative_to(folder) and path != folder:
                args += ["--ro-bind", str(path), str(path)]
        args += ["--remount-ro", str(folder)]
    if gateway_dir is not None:
        args += ["--ro-bind", str(gateway_dir), GATEWAY_DIR_INSIDE]
    command = list(runner) or [sys.executable, "-I", "-m", "pytest_mteval.run.runner_main"]
    args += ["--chdir", str(method_dir.resolve()), "--", *command]
    label = f"sandbox {HOST_NETWORK if network else NO_NETWORK}"
    return Launch(args, env=dict(env), cwd=None, label=label)
