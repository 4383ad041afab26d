"""What the converter scripts share, so that every shipped file is written and invoked alike.

Imported as a top-level module: `python scripts/<name>.py` puts this folder on sys.path.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def render(document: dict[str, Any]) -> bytes:
    """Deterministic bytes: UTF-8 without escapes, two-space indent, final newline."""
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def base_parser(description: str, default_out: Path) -> argparse.ArgumentParser:
    """A parser with --shared (the upstream files) and --out (default_out, inside the repo)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--shared",
        type=Path,
        default=REPO.parent / "shared" / "data",
        help="the shared data folder (default: ../shared/data)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=default_out,
        help=f"output folder (default: {default_out.relative_to(REPO).as_posix()}/)",
    )
    return parser
