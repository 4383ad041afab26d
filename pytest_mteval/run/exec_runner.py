"""The launcher of a runner that is not Python's own (``python -m
pytest_mteval.run.exec_runner [--supervised] [--private-fds] -- COMMAND...``): it puts the
runner under the same supervisor as the Python runner, then becomes the runner's command.

``--private-fds`` moves the protocol off the standard streams before the command starts: its
input to fd 3 and its output to fd 4, with fd 0 on /dev/null and fd 1 on stderr, so that what
a method prints (or a child it starts prints) lands on stderr instead of garbling the protocol.
"""

from __future__ import annotations

import os
import sys

#: Where a runner started with ``--private-fds`` reads and writes the protocol.
PROTOCOL_IN_FD = 3
PROTOCOL_OUT_FD = 4


def main(argv: list[str]) -> None:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: exec_runner [--supervised] [--private-fds] -- COMMAND...", file=sys.stderr)
        os._exit(2)
    split = argv.index("--")
    flags, command = argv[:split], argv[split + 1 :]
    if "--supervised" in flags:
        from pytest_mteval.run.supervisor import supervise

        supervise()  # returns in the runner; its parent stays behind to end what it starts
    if "--private-fds" in flags:
        os.dup2(0, PROTOCOL_IN_FD)
        os.dup2(1, PROTOCOL_OUT_FD)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    try:
        os.execv(command[0], command)
    except OSError as exc:
        print(f"cannot start the runner {command[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
