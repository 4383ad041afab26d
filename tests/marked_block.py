"""The commands (or output) a page gives in a marked block, read as ``.ci/run`` reads them, so
that what CI runs and what the tests run is what a reader copies, wherever the prose moves:

    <!-- commands -->
    ```sh
    pip install -e . && pytest ...
    ```
    <!-- /commands -->
"""

from __future__ import annotations

from pathlib import Path


def marked_block(page: Path, name: str) -> list[str]:
    """The non-empty lines of the fenced block between ``<!-- name -->`` and
    ``<!-- /name -->`` on ``page``, fences left out; exactly one such block must exist."""
    lines = page.read_text(encoding="utf-8").splitlines()
    opening, closing = f"<!-- {name} -->", f"<!-- /{name} -->"
    if lines.count(opening) != 1 or lines.count(closing) != 1:
        raise ValueError(f"{page}: not exactly one {opening} ... {closing} block")
    block = lines[lines.index(opening) + 1 : lines.index(closing)]
    if len(block) < 2 or not block[0].startswith("```") or block[-1] != "```":
        raise ValueError(f"{page}: the {opening} block is not one fenced code block")
    return [line.strip() for line in block[1:-1] if line.strip()]
