"""``--mteval-entry``: entries by exact id, by id range (``1-3``) or by a comma list of both
(``1-3,7``), as the reference harness selects entries.

An exact id always wins: a corpus whose ids contain a dash ("tatoeba-12") is selected by id,
never read as a range. A range covers the entries whose id is a whole number between its two
ends (inclusive), so it selects from integer ids and from digit-only text ids alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from pytest_mteval.errors import MtevalError

_RANGE: Final = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


class EntrySelectionError(MtevalError, ValueError):
    """A selection naming no entry of the corpus; the message names the part given."""


def selected_keys(given: Sequence[str], keys: Iterable[str]) -> set[str]:
    """The entry keys (ids as text) that the ``--mteval-entry`` values select.

    Every part must select at least one entry: a typo is an error, not an empty run."""
    known = list(keys)
    known_set = set(known)
    numeric = {int(k): k for k in known if k.isascii() and k.isdigit()}
    wanted: set[str] = set()
    for value in given:
        for part in _parts(value, known_set):
            wanted |= _one_part(part, known_set, numeric)
    return wanted


def _parts(value: str, known: set[str]) -> list[str]:
    """The comma-separated parts of one value; a value that is itself an id stays whole."""
    if value in known or "," not in value:
        return [value]
    return [part.strip() for part in value.split(",") if part.strip()]


def _one_part(part: str, known: set[str], numeric: dict[int, str]) -> set[str]:
    if part in known:
        return {part}
    match = _RANGE.match(part)
    if match is None:
        raise EntrySelectionError(f"no entry with id {part!r}")
    low, high = int(match.group(1)), int(match.group(2))
    if low > high:
        raise EntrySelectionError(f"range {part!r} runs backwards (write {high}-{low})")
    found = {key for number, key in numeric.items() if low <= number <= high}
    if not found:
        raise EntrySelectionError(f"no entry with an id in the range {part!r}")
    return found
