"""The one way to read a JSON file a user hands us.

Files from users are hostile until read: JSON has no limits of its own, and Python's decoder
raises ``RecursionError`` on deep nesting and ``ValueError`` on integers of more than 4,300
digits, neither of which is a ``JSONDecodeError``. :func:`read_json` bounds size, nesting and
number length first and turns every failure into one line (an ``MtevalError`` of the caller's
type).
"""

from __future__ import annotations

import json
import math
import re
import stat
from pathlib import Path
from typing import Any, Final

from pytest_mteval.errors import MtevalError

#: The largest JSON file read whole (a 10,000-entry corpus is a few MB).
MAX_JSON_BYTES: Final = 256 * 1024 * 1024
#: The deepest nesting of objects and arrays accepted (real files use < 10).
MAX_JSON_DEPTH: Final = 64
#: The longest run of digits accepted in a number (a float has 17 significant digits).
MAX_NUMBER_DIGITS: Final = 40

#: The escapes that can make a surrogate (UTF-8 bytes cannot hold one).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JsonFileError(MtevalError):
    """A JSON file that cannot be read within the limits; raised with a caller's type."""


def read_json(path: Path, what: str, error: type[MtevalError] = JsonFileError) -> Any:
    """The parsed content of ``path``, or ``error`` with one line saying why not."""
    return parse_json(read_bytes(path, what, error), str(path), error)


def read_bytes(path: Path, what: str, error: type[MtevalError] = JsonFileError) -> bytes:
    """The bytes of a regular file of bounded size, or ``error`` with one line."""
    try:
        info = path.stat()
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path}: {what} must be a regular file")
    if info.st_size > MAX_JSON_BYTES:
        raise error(f"{path}: {what} is larger than {MAX_JSON_BYTES // 2**20} MiB")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_JSON_BYTES + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if len(data) > MAX_JSON_BYTES:
        raise error(f"{path}: {what} is larger than {MAX_JSON_BYTES // 2**20} MiB")
    return data


def parse_json(data: bytes, label: str, error: type[MtevalError] = JsonFileError) -> Any:
    """``data`` parsed as bounded JSON: UTF-8, nesting, number length, finite numbers and
    strings without lone surrogates are checked; ``label`` starts the message."""
    if len(data) > MAX_JSON_BYTES:
        raise error(f"{label}: larger than {MAX_JSON_BYTES // 2**20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        value = json.loads(
            text, parse_constant=_no_constant, parse_int=_bounded_int, parse_float=_finite_float
        )
    except json.JSONDecodeError as exc:
        raise error(
            f"{label}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise error(f"{label}: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # NaN, Infinity, a huge number: from the hooks below
        raise error(f"{label}: invalid JSON: {exc}") from None
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise error(f"{label}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if _SURROGATE_ESCAPE.search(data):  # only then can a string hold a lone surrogate
        where = first_unencodable(value)
        if where is not None:
            raise error(f"{label}: {where or 'a string'} is not valid Unicode (a lone surrogate)")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number longer than {MAX_NUMBER_DIGITS} digits")
    return int(digits)


def _finite_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 8:
        raise ValueError(f"a number longer than {MAX_NUMBER_DIGITS} digits")
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is out of range for a number")
    return number


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether objects and arrays nest deeper than ``limit``; iterative, stops early."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def first_unencodable(value: Any, path: str = "") -> str | None:
    """The path ('' for the top) of the first string (or key) that UTF-8 cannot encode, or
    of a non-finite float; None when there is none. Iterative: no recursion limit."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if not _encodes(item):
                return where
        elif isinstance(item, float):
            if not math.isfinite(item):
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                shown = key if isinstance(key, str) and key.isidentifier() else repr(key)[:40]
                name = f"{where}.{shown}" if where else shown
                if isinstance(key, str) and not _encodes(key):
                    return where or "a key"
                stack.append((name, inner))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", inner) for i, inner in enumerate(item))
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
