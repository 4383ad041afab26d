"""What one ``--mteval-*`` option is (its name, kind, default, bounds, help, ini key) and the
one registrar that declares it, for pytest's parser and for an ``mteval`` subcommand's alike,
so that both show the same name, default and help. Plain data and stdlib only: pytest's entry
point imports it in a session that evaluates nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

#: ``value`` takes one value, ``list`` may be given several times (a space-separated list as an
#: ini key), ``flag`` is an on/off switch.
Kind = Literal["value", "list", "flag"]
#: How the value is read: the plugin checks it itself (``plugin/options.py``), a subcommand
#: hands ``int`` and ``float`` to argparse.
ValueType = Literal["str", "int", "float", "path"]
_ARGPARSE_TYPES: dict[ValueType, type] = {"int": int, "float": float}


@dataclass(frozen=True)
class OptionSpec:
    """One option as a user meets it on the command line, in an ini file and in the docs."""

    name: str  # ``batch-size``: the option is ``--mteval-batch-size``
    help: str  # one line for ``--help``, without the default (added by ``help_text``)
    topic: str  # its section of docs/options.md
    kind: Kind = "value"
    default: str | None = None  # as the ini holds it; None: not set
    type: ValueType = "str"
    low: float | None = None  # bounds of a number, inclusive; written as the error shows them
    high: float | None = None
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    default_text: str | None = None  # the default in words, when it is not a value
    details: str = ""  # what docs/options.md adds to the help

    @property
    def flag(self) -> str:
        return f"--mteval-{self.name}"

    @property
    def dest(self) -> str:
        """The option's attribute and ini key: ``batch-size`` is ``mteval_batch_size``."""
        return "mteval_" + self.name.replace("-", "_")

    @property
    def shown_metavar(self) -> str | None:
        """What the option's value looks like in ``--help``: its choices, if it has some."""
        return self.metavar or ("|".join(self.choices) if self.choices else None)

    @property
    def shown_default(self) -> str | None:
        return self.default_text if self.default_text is not None else self.default

    def help_text(self, unset: str | None = None) -> str:
        """The help line; ``unset`` says what a subcommand does when the option is not given,
        where that is not the plugin's default (``mteval compare`` takes B's card's gate)."""
        notes = ["repeatable"] if self.kind == "list" else []
        shown = self.shown_default
        if unset is not None:
            notes.append(f"default: {unset}, else {shown or 'none'}")
        elif shown is not None and self.kind == "value":
            notes.append(f"default: {shown}")
        return f"{self.help} ({'; '.join(notes)})" if notes else self.help


def add_option(
    addoption: Callable[..., Any],
    spec: OptionSpec,
    *,
    prefix: str = "--mteval-",
    typed: bool = False,
    unset: str | None = None,
    **extra: Any,
) -> None:
    """Declare ``spec`` through ``addoption``: pytest's ``group.addoption`` (prefix
    ``--mteval-``, values read as text and checked by the plugin) or an argparse parser's
    ``add_argument`` (prefix ``--``, ``typed`` numbers). ``extra`` passes argparse's own
    keywords (``required``, a ``default`` of its own); with ``unset``, the default is None."""
    flag = prefix + spec.name
    shared: dict[str, Any] = {"help": spec.help_text(unset)}
    if unset is not None:  # not given: the subcommand's own fallback applies
        extra = {"default": None, **extra}
    if prefix == "--mteval-":
        shared["dest"] = spec.dest
    if spec.kind == "flag":
        addoption(flag, action="store_true", **shared, **extra)
        return
    if spec.shown_metavar is not None:
        shared["metavar"] = spec.shown_metavar
    if spec.kind == "list":
        addoption(flag, action="append", **{"default": [], **shared, **extra})
        return
    kind = _ARGPARSE_TYPES.get(spec.type) if typed else None
    default = None if kind is None or spec.default is None else kind(spec.default)
    addoption(flag, **{"default": default, **({"type": kind} if kind else {}), **shared, **extra})
