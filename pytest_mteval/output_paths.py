"""Whether a path can take a file we are about to write, checked before a run pays for
anything."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def check_output_path(path: Path, option: str) -> str | None:
    """Why ``path`` cannot take a new file written by us (a card, a baseline), or None.

    It must be a regular file or not exist yet, in an existing-or-creatable folder we can
    write to: a device (``/dev/null``), a folder or a fifo is refused before the run pays for
    anything.
    """
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        info = None
    except OSError as exc:
        return f"{option}={path}: {exc.strerror or exc}"
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        return f"{option}={path}: {kind}; give the path of a JSON file"
    folder = path.parent
    while not folder.exists():
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        return f"{option}={path}: {folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{option}={path}: the folder {folder} is not writable"
    return None
