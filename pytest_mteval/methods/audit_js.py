"""The static audit of a JavaScript file: the same seven categories as Python's walk.

No JavaScript parser ships with Python, so the file is cut into tokens (names, strings,
punctuation; comments, regular expressions and template texts set apart) and the audit reads
patterns over them: ``require("net")``, ``import ... from "child_process"``, ``eval(``,
``new Function``, ``fetch(``, ``process.argv``, an ``fs`` call whose first argument is a path
written out outside the folder. A module loaded by a computed name is reported as dynamic code.
A file the tokenizer cannot cut (an unterminated string) is reported, never passed over.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

from pytest_mteval.methods.audit_rules import (
    JS_GLOBALS,
    JS_MEMBERS,
    JS_METHODS,
    JS_MODULES,
    JS_PATH_CALLS,
)

__all__ = ["JsFinding", "audit_javascript"]

#: Whether a path written in a file leaves the method's folder (``audit.py`` decides).
PathCheck = Callable[[str], bool]

#: Words after which a ``/`` starts a regular expression, not a division.
_REGEX_AFTER_WORDS: Final = frozenset(
    {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case"}
    | {"do", "else", "yield", "await"}
)
_NAME: Final = re.compile(r"[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*")
_NUMBER: Final = re.compile(r"\d[\w.]*|\.\d[\w.]*")
_PUNCT: Final = re.compile(
    r">>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|\?\?=|&&=|\|\|=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\."
    r"|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>|\*\*|[^\s]"
)


class JsSyntaxError(ValueError):
    """A file the tokenizer cannot cut into tokens; ``line`` is where it gave up."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Token:
    kind: str  # name, string, template, number, regex, punct
    text: str
    line: int


@dataclass(frozen=True)
class JsFinding:
    category: str
    line: int
    what: str


def tokens(source: str) -> list[Token]:
    """``source`` cut into tokens; comments and whitespace left out."""
    out: list[Token] = []
    braces: list[str] = []  # "{" or "${" (a template's substitution)
    at, line, end = 0, 1, len(source)
    while at < end:
        char = source[at]
        if char == "\n":
            line += 1
            at += 1
        elif char.isspace():
            at += 1
        elif source.startswith("//", at):
            stop = source.find("\n", at)
            at = end if stop < 0 else stop
        elif source.startswith("/*", at):
            stop = source.find("*/", at + 2)
            if stop < 0:
                raise JsSyntaxError("an unterminated comment", line)
            line += source.count("\n", at, stop)
            at = stop + 2
        elif char in "'\"":
            text, at, line = _string(source, at, line)
            out.append(Token("string", text, line))
        elif char == "`" or (char == "}" and braces and braces[-1] == "${"):
            if char == "}":
                braces.pop()
            start_line = line
            text, at, line, opened = _template(source, at + 1, line)
            out.append(Token("template", text, start_line))
            if opened:
                braces.append("${")
        elif char == "/" and _regex_may_start(out):
            at, line = _regex(source, at, line)
            out.append(Token("regex", "", line))
        elif match := _NAME.match(source, at):
            out.append(Token("name", match.group(), line))
            at = match.end()
        elif match := _NUMBER.match(source, at):
            out.append(Token("number", match.group(), line))
            at = match.end()
        else:
            match = _PUNCT.match(source, at)
            assert match is not None  # any non-space character matches
            text = match.group()
            if text == "{":
                braces.append("{")
            elif text == "}" and braces:
                braces.pop()
            out.append(Token("punct", text, line))
            at = match.end()
    return out


def _string(source: str, at: int, line: int) -> tuple[str, int, int]:
    quote, at = source[at], at + 1
    parts: list[str] = []
    while at < len(source):
        char = source[at]
        if char == quote:
            return "".join(parts), at + 1, line
        if char == "\n":
            break
        if char == "\\" and at + 1 < len(source):
            escaped = source[at + 1]
            line += escaped == "\n"
            parts.append({"n": "\n", "t": "\t", "0": "\0"}.get(escaped, escaped))
            at += 2
            continue
        parts.append(char)
        at += 1
    raise JsSyntaxError("an unterminated string", line)


def _template(source: str, at: int, line: int) -> tuple[str, int, int, bool]:
    """A template's text up to its end (False) or to a ``${`` (True)."""
    parts: list[str] = []
    while at < len(source):
        char = source[at]
        if char == "`":
            return "".join(parts), at + 1, line, False
        if source.startswith("${", at):
            return "".join(parts), at + 2, line, True
        if char == "\\" and at + 1 < len(source):
            parts.append(source[at + 1])
            line += source[at + 1] == "\n"
            at += 2
            continue
        line += char == "\n"
        parts.append(char)
        at += 1
    raise JsSyntaxError("an unterminated template", line)


def _regex_may_start(before: list[Token]) -> bool:
    if not before:
        return True
    last = before[-1]
    if last.kind == "name":
        return last.text in _REGEX_AFTER_WORDS
    if last.kind == "punct":
        return last.text not in (")", "]", "}", "++", "--")
    return False


def _regex(source: str, at: int, line: int) -> tuple[int, int]:
    at += 1
    in_class = False
    while at < len(source):
        char = source[at]
        if char == "\n":
            break
        if char == "\\":
            at += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = _NAME.match(source, at + 1)
            return (flags.end() if flags else at + 1), line
        at += 1
    raise JsSyntaxError("an unterminated regular expression", line)


def audit_javascript(source: str, outside: PathCheck) -> list[JsFinding]:
    """The findings of one JavaScript file; ``outside`` says whether a literal path leaves
    the method's folder."""
    try:
        cut = tokens(source)
    except JsSyntaxError as exc:
        return [JsFinding("dynamic_code", exc.line, f"unparseable file ({exc})")]
    return sorted(set(_findings(cut, outside)), key=lambda f: (f.line, f.what))


def _findings(cut: list[Token], outside: PathCheck) -> Iterator[JsFinding]:
    for at, token in enumerate(cut):
        after = cut[at + 1 : at + 4]
        following = [t.text for t in after]
        before = cut[at - 1].text if at else ""
        if token.kind != "name":
            continue
        if token.text in JS_PATH_CALLS and following[:1] == ["("] and len(after) > 1:
            literal = after[1]
            if literal.kind in ("string", "template") and literal.text and outside(literal.text):
                yield JsFinding("outside_files", token.line, f"{token.text}({literal.text!r})")
        if before in (".", "?."):
            if token.text == "require" and following[:1] == ["("]:  # module.require(...)
                yield from _module_use(after[1:], token.line, "require")
            if token.text in JS_METHODS and following[:1] == ["("]:
                yield JsFinding(JS_METHODS[token.text], token.line, f".{token.text}()")
            continue
        if token.text == "require" and following[:1] == ["("]:
            yield from _module_use(after[1:], token.line, "require")
        elif token.text == "require" and following[:1] not in (["."], ["?."]):
            yield JsFinding("dynamic_code", token.line, "require used as a value")
        elif token.text == "import" and following[:1] == ["("]:
            yield JsFinding("dynamic_code", token.line, "import()")
            yield from _module_use(after[1:], token.line, "import")
        elif token.text in ("import", "export") and following[:1] != ["("]:
            yield from _static_import(cut, at)
        elif token.text == "Function" and (before == "new" or following[:1] == ["("]):
            yield JsFinding("dynamic_code", token.line, "Function")
        elif token.text in JS_GLOBALS:
            yield JsFinding(JS_GLOBALS[token.text], token.line, token.text)
        elif token.text in ("process", "globalThis", "global", "os", "module"):
            yield from _member(token, cut[at + 1 : at + 3])


def _member(token: Token, after: list[Token]) -> Iterator[JsFinding]:
    if len(after) == 2 and after[0].text in (".", "?.") and after[1].kind == "name":
        name = f"{token.text}.{after[1].text}"
        if name in JS_MEMBERS:
            yield JsFinding(JS_MEMBERS[name], token.line, name)
    elif len(after) == 2 and after[0].text == "[" and token.text in ("globalThis", "global"):
        yield JsFinding("dynamic_code", token.line, f"{token.text}[...]")


def _module_use(after: list[Token], line: int, verb: str) -> Iterator[JsFinding]:
    """``require(`` or ``import(`` followed by ``after``: a literal name, or a computed one."""
    if after and after[0].kind in ("string", "template") and after[1:2] and after[1].text == ")":
        yield from _module(after[0].text, line, verb)
    else:
        yield JsFinding("dynamic_code", line, f"{verb} of a computed name")


def _static_import(cut: list[Token], at: int) -> Iterator[JsFinding]:
    """``import x from "m"``, ``import "m"``, ``export * from "m"``: the first string
    before the statement ends."""
    for token in cut[at + 1 : at + 200]:
        if token.kind == "string":
            yield from _module(token.text, cut[at].line, cut[at].text)
            return
        if token.text in (";", "=", "(") or (
            token.kind == "name" and token.text in ("function", "class")
        ):
            return


def _module(name: str, line: int, verb: str) -> Iterator[JsFinding]:
    bare = name.removeprefix("node:")
    root = bare.split("/")[0] if not bare.startswith("@") else "/".join(bare.split("/")[:2])
    category = JS_MODULES.get(bare) or JS_MODULES.get(root)
    if category is not None:
        yield JsFinding(category, line, f"{verb} {name}")
    if bare.endswith(".node"):
        yield JsFinding("native_code", line, f"{verb} {name}")
    if bare.startswith("/") or ".." in PurePosixPath(bare).parts:
        yield JsFinding("outside_files", line, f"{verb} {name}")
