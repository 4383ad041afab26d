"""The runner each runtime gets: Python's own (``runner_main``), the Node.js runner shipped
with the package (``node_runner.js``), or the command a method.json names. Every one is
started by the same launcher and supervisor, in the same sandbox, and speaks one protocol
(docs/runner-protocol.md), so timeouts, the gateway, the ledger and faults work alike.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from pytest_mteval.errors import SettingsError
from pytest_mteval.methods.loader import MethodSource

NODE_RUNNER = Path(__file__).resolve().with_name("node_runner.js")
#: Folders the sandbox shows anyway (sandbox.py): a binary inside needs nothing more shown.
_SYSTEM = tuple(Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib64"))


@dataclass(frozen=True)
class RunnerCommand:
    """A runner that is not the Python one: its command line (absolute, valid inside the
    sandbox too), whether it speaks on fds 3 and 4 (``exec_runner --private-fds``), and what
    the sandbox must show for it to start."""

    runtime: str
    argv: list[str]
    private_fds: bool = False
    shown: list[Path] = field(default_factory=list)

    def launcher(self, python: list[str], supervised: bool) -> list[str]:
        """``python -m pytest_mteval.run.exec_runner`` in front of the runner's command."""
        flags = ["--supervised"] if supervised else []
        flags += ["--private-fds"] if self.private_fds else []
        return [*python, "-m", "pytest_mteval.run.exec_runner", *flags, "--", *self.argv]


def runner_command(source: MethodSource) -> RunnerCommand | None:
    """The runner of ``source``'s runtime; None for Python (``runner_main``)."""
    if source.runtime == "python":
        return None
    where = f"method.json of {source.name!r}: runtime"
    if source.runtime == "node":
        node = _found("node", f"{where} node needs Node.js (node on PATH): apt-get install nodejs")
        return RunnerCommand("node", [str(node), str(NODE_RUNNER), "--private-fds"], True,
                             _install_of(node))  # fmt: skip
    program = command_program(source)
    assert source.manifest is not None
    assert isinstance(source.manifest.runtime, list)
    rest = source.manifest.runtime[1:]
    assert source.directory is not None
    shown = [] if _inside(program, [*_SYSTEM, source.directory]) else [program]
    return RunnerCommand("command", [str(program), *rest], False, shown)


def command_program(source: MethodSource) -> Path:
    """The program a command runtime starts: a file of the method folder, or an interpreter
    found on PATH. A path outside the folder, as the program or as an argument, is refused:
    the code hash covers the folder, so code elsewhere would run unhashed."""
    manifest = source.manifest
    assert manifest is not None
    assert isinstance(manifest.runtime, list)
    assert source.directory is not None
    folder = source.directory
    where = f"{folder / 'method.json'}: field 'runtime'"
    head, *rest = manifest.runtime
    if "/" in head:
        program = (folder / head).resolve()
        if not program.is_relative_to(folder):
            raise SettingsError(
                f"{where}: {head} lies outside the method folder; a command runs a file of "
                "the folder or an interpreter on PATH"
            )
        if not program.is_file():
            raise SettingsError(f"{where}: {head} is not a file in {folder}")
    else:
        program = _found(head, f"{where}: {head} is not on PATH")
    for argument in rest:
        given = PurePath(argument)
        reaching = given.is_absolute() or ".." in given.parts or argument.startswith("~")
        if reaching and not (folder / given).expanduser().resolve().is_relative_to(folder):
            raise SettingsError(
                f"{where}: argument {argument} lies outside the method folder; the code "
                "a command runs must be in the folder, where its hash covers it"
            )
    return program


def command_interpreter(source: MethodSource, program: Path) -> Path | None:
    """The interpreter that runs ``program``: itself when it comes from PATH, or the one a
    script of the folder names on its ``#!`` line (``env NAME`` looked up on PATH)."""
    assert source.directory is not None
    if not program.is_relative_to(source.directory):
        return program
    try:
        with program.open("rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None  # a binary of the folder: hashed with the folder
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        named = next((w for w in words[1:] if not w.startswith("-")), None)
        found = shutil.which(named) if named else None
        return Path(found).resolve() if found else None
    interpreter = Path(words[0]).resolve()
    return interpreter if interpreter.is_file() else None


def _found(name: str, missing: str) -> Path:
    found = shutil.which(name)
    if found is None:
        raise SettingsError(missing)
    return Path(found).resolve()


def _inside(path: Path, folders: list[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _install_of(binary: Path) -> list[Path]:
    """What the sandbox must show for a binary outside the system folders (a Node.js under
    /opt or ~/.nvm): its whole installation (``PREFIX/bin/node`` -> ``PREFIX``)."""
    if _inside(binary, list(_SYSTEM)):
        return []
    return [binary.parent.parent if binary.parent.name == "bin" else binary.parent]
