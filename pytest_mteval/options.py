"""Command-line options and ini keys, and the typed Settings read from them.

Every option is also an ini key (``--mteval-corpus`` <-> ``mteval_corpus``), so a repository can
pin its evaluation in ``[tool.pytest.ini_options]`` and CI only adds what differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pytest_mteval.gate import GateOptionError, GateOptions, parse_metric_gate
from pytest_mteval.regressions import EntryGateOptions

#: (option suffix, help, default) for options that take one value.
_VALUE_OPTIONS: tuple[tuple[str, str, str | None], ...] = (
    ("corpus", "corpus file to evaluate (spec envelope or reference-harness shape)", None),
    ("method", "method folder (with method.json) or a registered method name", None),
    ("method-card", "method card JSON to validate and embed in the run card", None),
    ("batch-size", "entries per method call (default 25)", "25"),
    ("concurrency", "requests in flight at most, handed to the method (default 8)", "8"),
    ("timeout", "seconds one batch's translation may take (default 300)", "300"),
    ("model", "model slug handed to the method (e.g. google/gemini-2.5-flash)", None),
    ("temperature", "sampling temperature handed to the method (default 0.0)", "0.0"),
    ("condition", "experiment label recorded on the run card (default baseline)", None),
    ("run-card", "where to write the run card (default .mteval/runs/<time>-<id>.json)", None),
    ("fst", "target-language morphological analyzer (HFST optimized lookup)", None),
    ("prices", "price table JSON overriding the shipped one (USD per million tokens)", None),
    ("request-timeout", "seconds one request of an LLM method may take", None),
    ("baseline", "run card (or reference-harness report) to gate against", None),
    ("max-drop", "largest allowed drop of the composite against the baseline (0.0)", "0.0"),
    ("fail-under", "fail when the composite is below this floor", None),
    ("significance", "a drop fails only when paired bootstrap p < this (0.05; 0 = off)", "0.05"),
    ("entry-max-drop", "an entry fails when its chrF++ drops by more than this (10)", "10"),
    ("entry-min-chrf", "without a baseline, an entry fails below this chrF++", None),
    ("corpus-key-file", "file holding an encrypted corpus's key (mteval corpus encrypt)", None),
    ("corpus-key-env", "environment variable holding the key of an encrypted corpus", None),
    ("sign-key", "Ed25519 private key (mteval keygen) that signs the run card", None),
)
#: Options that may be given several times (and are space-separated lists as ini keys).
_LIST_OPTIONS: tuple[tuple[str, str], ...] = (
    ("method-arg", "KEY=VALUE handed to the method as config.method_args (repeatable)"),
    ("segment", "only entries of this segment (repeatable)"),
    ("domain", "only entries of this domain code (repeatable)"),
    ("difficulty", "only entries of this difficulty 1-5 (repeatable)"),
    ("gate", "METRIC:MAX_DROP, e.g. chrf_plus_plus:1.0 (repeatable)"),
)
#: On/off switches.
_FLAG_OPTIONS: tuple[tuple[str, str], ...] = (
    ("allow-dataset-change", "compare with a baseline made on a different corpus version"),
    ("update-baseline", "after a passing run, write its card to the baseline path"),
    ("no-cache", "do not read or write the translation cache (.mteval/cache)"),
    ("dry-run", "collect and estimate tokens and cost without calling the method"),
    ("scores-only", "card and terminal carry ids, scores and flags, never corpus or output text"),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mteval", "machine-translation evaluation (pytest-mteval)")
    for name, help_text, default in _VALUE_OPTIONS:
        dest = _dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, default=None, help=help_text)
        parser.addini(dest, help_text, type="string", default=default)
    for name, help_text in _LIST_OPTIONS:
        dest = _dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, action="append", default=[], help=help_text)
        parser.addini(dest, help_text, type="args", default=[])
    for name, help_text in _FLAG_OPTIONS:
        dest = _dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, action="store_true", help=help_text)
        parser.addini(dest, help_text, type="bool", default=False)


def _dest(name: str) -> str:
    return "mteval_" + name.replace("-", "_")


class SettingsError(Exception):
    """An option value that cannot be used; the message names the option."""


@dataclass(frozen=True)
class Settings:
    """The run's options after ini/command-line merging and type checks."""

    corpus: Path | None
    method: str | None
    method_base: Path = Path()
    method_card: Path | None = None
    method_args: dict[str, str] = field(default_factory=dict)
    segments: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    difficulties: tuple[int, ...] = ()
    batch_size: int = 25
    concurrency: int = 8
    timeout_s: float = 300.0
    model: str | None = None
    temperature: float = 0.0
    condition: str | None = None
    run_card: Path | None = None
    fst: Path | None = None
    prices: Path | None = None
    request_timeout_s: float | None = None
    baseline: Path | None = None
    gate: GateOptions = field(default_factory=GateOptions)
    entry_gate: EntryGateOptions = field(default_factory=EntryGateOptions)
    allow_dataset_change: bool = False
    update_baseline: bool = False
    no_cache: bool = False
    dry_run: bool = False
    corpus_key_file: Path | None = None
    corpus_key_env: str | None = None
    sign_key: Path | None = None
    scores_only: bool = False


def read_settings(config: pytest.Config) -> Settings:
    """Merge command line over ini, resolve paths against the invocation directory."""
    base = config.invocation_params.dir

    def value(name: str) -> str | None:
        given = config.getoption(_dest(name))
        if given is not None:
            return str(given)
        ini: Any = config.getini(_dest(name))
        return str(ini) if ini not in (None, "") else None

    def values(name: str) -> list[str]:
        given: list[str] = config.getoption(_dest(name)) or []
        return given or [str(v) for v in config.getini(_dest(name))]

    def flag(name: str) -> bool:
        return bool(config.getoption(_dest(name)) or config.getini(_dest(name)))

    def base_of(name: str) -> Path:
        """Command-line paths are relative to where pytest runs, ini paths to the ini file."""
        from_ini = config.getoption(_dest(name)) is None
        return config.inipath.parent if from_ini and config.inipath else base

    def path(name: str) -> Path | None:
        raw = value(name)
        return None if raw is None else base_of(name) / raw

    def number(name: str, low: float | None = None, high: float | None = None) -> float | None:
        raw = value(name)
        return None if raw is None else _number(float, name, raw, low, high)

    try:
        gate = GateOptions(
            max_drop=number("max-drop"),
            fail_under=number("fail-under"),
            metric_gates=dict(parse_metric_gate(g) for g in values("gate")),
            significance=number("significance", 0.0, 1.0) or 0.0,
        )
    except GateOptionError as exc:
        raise SettingsError(f"mteval gate option: {exc}") from None
    return Settings(
        corpus=path("corpus"),
        method=value("method"),
        method_base=base_of("method"),
        method_card=path("method-card"),
        method_args=_key_values(values("method-arg")),
        segments=tuple(values("segment")),
        domains=tuple(values("domain")),
        difficulties=tuple(_number(int, "difficulty", v, 1, 5) for v in values("difficulty")),
        batch_size=_number(int, "batch-size", value("batch-size") or "25", 1, None),
        concurrency=_number(int, "concurrency", value("concurrency") or "8", 1, None),
        timeout_s=_number(float, "timeout", value("timeout") or "300", 0.001, None),
        model=value("model"),
        temperature=_number(float, "temperature", value("temperature") or "0", 0.0, 2.0),
        condition=value("condition"),
        run_card=path("run-card"),
        fst=path("fst"),
        prices=path("prices"),
        request_timeout_s=number("request-timeout", 0.001),
        baseline=path("baseline"),
        gate=gate,
        entry_gate=EntryGateOptions(
            entry_max_drop=number("entry-max-drop", 0.0) or 0.0,
            entry_min_chrf=number("entry-min-chrf", 0.0, 100.0),
        ),
        allow_dataset_change=flag("allow-dataset-change"),
        update_baseline=flag("update-baseline"),
        no_cache=flag("no-cache"),
        dry_run=flag("dry-run"),
        corpus_key_file=path("corpus-key-file"),
        corpus_key_env=value("corpus-key-env"),
        sign_key=path("sign-key"),
        scores_only=flag("scores-only"),
    )


def _key_values(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, val = pair.partition("=")
        if not sep or not key:
            raise SettingsError(f"--mteval-method-arg expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = val
    return out


N = TypeVar("N", int, float)


def _number(kind: type[N], option: str, raw: str, low: float | None, high: float | None) -> N:
    try:
        number = kind(raw)
    except ValueError:
        raise SettingsError(f"--mteval-{option} expects a number, got {raw!r}") from None
    if (
        number != number
        or (low is not None and number < low)
        or (high is not None and number > high)
    ):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise SettingsError(f"--mteval-{option} must be {bounds}, got {raw!r}")
    return number
