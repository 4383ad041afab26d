"""Command-line options and ini keys, and the typed Settings read from them.

Every option is also an ini key (``--mteval-corpus`` <-> ``mteval_corpus``), so a repository can
pin its evaluation in ``[tool.pytest.ini_options]`` and CI only adds what differs.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pytest_mteval.errors import SettingsError
from pytest_mteval.run.settings import Settings
from pytest_mteval.scoring.gate_options import (
    EntryGateOptions,
    GateOptionError,
    GateOptions,
    split_metric_gate,
)

#: (option suffix, help, default) for options that take one value.
_VALUE_OPTIONS: tuple[tuple[str, str, str | None], ...] = (
    ("corpus", "corpus file to evaluate (spec envelope or reference-harness shape)", None),
    ("method", "method folder (with method.json) or a registered method name", None),
    ("method-card", "method card JSON to validate and embed in the run card", None),
    ("batch-size", "entries per method call (default 25)", "25"),
    ("concurrency", "requests in flight at most, handed to the method (default 8)", "8"),
    ("timeout", "seconds one batch's translation may take (default 300)", "300"),
    ("score-timeout", "seconds the metrics may take on one entry (default 60)", "60"),
    ("model", "model slug handed to the method (e.g. google/gemini-2.5-flash)", None),
    ("temperature", "sampling temperature handed to the method (default 0.0)", "0.0"),
    ("condition", "experiment label recorded on the run card (default baseline)", None),
    ("run-card", "where to write the run card (default .mteval/runs/<time>-<id>.json)", None),
    ("fst", "target-language morphological analyzer (HFST optimized lookup)", None),
    ("prices", "price table JSON overriding the shipped one (USD per million tokens)", None),
    ("request-timeout", "seconds one request of an LLM method may take", None),
    ("baseline", "run card (or reference-harness report) to gate against; none: no gate", None),
    ("max-drop", "largest allowed drop of the composite against the baseline (0.0)", "0.0"),
    ("fail-under", "fail when the composite is below this floor", None),
    ("significance", "a drop fails only when paired bootstrap p < this (0.05; 0 = off)", "0.05"),
    ("entry-max-drop", "an entry fails when its chrF++ drops by more than this (10)", "10"),
    ("entry-min-chrf", "without a baseline, an entry fails below this chrF++", None),
    ("label", "name of this run inside a sweep: a node level of its item ids", None),
    ("estimate-json", "with --mteval-dry-run, also write the estimate as JSON to this file", None),
    ("sweep", "sweep file (TOML): run every combination of its axes as its own run", None),
    ("compare", "compare with a saved run (latest, a run id or a card) without gating", None),
    ("keep-runs", "keep only this many newest cards in .mteval/runs (default: all)", None),
    ("html", "write the run's HTML report (charts, sortable entries) to this path", None),
    ("runner", "where the method runs: process (default) or inprocess (for a debugger)", None),
    ("sandbox", "auto (default: netns where the kernel allows), netns or none", "auto"),
    ("gateway-requests", "most requests the sandbox's LLM gateway forwards in a run", None),
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
    ("entry", "only the entry with exactly this id (repeatable)"),
    ("metrics", "only these optional metrics; 'default' and 'all' expand (repeatable)"),
    ("skip-metric", "leave out this optional metric (repeatable)"),
)
#: On/off switches.
_FLAG_OPTIONS: tuple[tuple[str, str], ...] = (
    ("allow-dataset-change", "compare with a baseline made on a different corpus version"),
    ("update-baseline", "after a passing run, write its card to the baseline path"),
    ("no-cache", "do not read or write the translation cache (.mteval/cache)"),
    ("dry-run", "collect and estimate tokens and cost without calling the method"),
    ("allow-over-budget", "run a sweep whose estimated cost exceeds its budget"),
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


#: What ``--mteval-baseline=none`` turns off among the ini's settings: the gate it configures.
_INI_GATE = frozenset({"baseline", "fail-under", "gate", "entry-min-chrf", "update-baseline"})
#: The values of ``--mteval-baseline`` that mean "no baseline, and not the ini's gate".
NO_BASELINE = ("none", "")


def read_settings(config: pytest.Config) -> Settings:
    """Merge command line over ini, resolve paths against the invocation directory."""
    base = config.invocation_params.dir
    given_baseline = config.getoption(_dest("baseline"))
    no_gate = given_baseline is not None and given_baseline.strip().lower() in NO_BASELINE

    def ini(name: str) -> Any:
        return None if no_gate and name in _INI_GATE else config.getini(_dest(name))

    def value(name: str) -> str | None:
        given = config.getoption(_dest(name))
        if given is not None and not (no_gate and name == "baseline"):
            return str(given)
        raw = ini(name)
        return str(raw) if raw not in (None, "") else None

    def values(name: str) -> list[str]:
        given: list[str] = config.getoption(_dest(name)) or []
        return given or [str(v) for v in ini(name) or []]

    def flag(name: str) -> bool:
        return bool(config.getoption(_dest(name)) or ini(name))

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
            significance=number("significance", 0.0, 1.0) or 0.0,
        )
        metric_gates = tuple(split_metric_gate(g) for g in values("gate"))
    except GateOptionError as exc:
        raise SettingsError(f"mteval gate option: {exc}") from None
    raw_keep = value("keep-runs")
    if no_gate and config.getoption(_dest("update-baseline")):
        raise SettingsError("--mteval-update-baseline needs a baseline path, not 'none'")
    return Settings(
        corpus=shipped_or(path("corpus"), value("corpus")),
        method=value("method"),
        method_base=base_of("method"),
        method_card=path("method-card"),
        method_args=_key_values(values("method-arg")),
        segments=tuple(values("segment")),
        domains=tuple(values("domain")),
        difficulties=tuple(_number(int, "difficulty", v, 1, 5) for v in values("difficulty")),
        batch_size=_number(int, "batch-size", value("batch-size") or "25", 1, None),
        concurrency=_number(int, "concurrency", value("concurrency") or "8", 1, None),
        timeout_s=_number(float, "timeout", value("timeout") or "300", 0.001, MAX_TIMEOUT_S),
        score_timeout_s=_number(
            float, "score-timeout", value("score-timeout") or "60", 0.001, MAX_TIMEOUT_S
        ),
        model=value("model"),
        temperature=_number(float, "temperature", value("temperature") or "0", 0.0, 2.0),
        condition=value("condition"),
        run_card=path("run-card"),
        fst=path("fst"),
        prices=path("prices"),
        request_timeout_s=number("request-timeout", 0.001, MAX_TIMEOUT_S),
        baseline=path("baseline"),
        no_gate=no_gate,
        gate=gate,
        metric_gates=metric_gates,
        entry_gate=EntryGateOptions(
            entry_max_drop=number("entry-max-drop", 0.0) or 0.0,
            entry_min_chrf=number("entry-min-chrf", 0.0, 100.0),
        ),
        allow_dataset_change=flag("allow-dataset-change"),
        update_baseline=flag("update-baseline"),
        no_cache=flag("no-cache"),
        dry_run=flag("dry-run"),
        label=_label(value("label")),
        estimate_json=path("estimate-json"),
        entries=tuple(values("entry")),
        metrics=tuple(values("metrics")),
        skip_metrics=tuple(values("skip-metric")),
        compare=value("compare"),
        keep_runs=None if raw_keep is None else _number(int, "keep-runs", raw_keep, 1, None),
        html=path("html"),
        runner=_choice("runner", value("runner") or "process", ("process", "inprocess")),
        sandbox=_choice("sandbox", value("sandbox") or "auto", ("auto", "netns", "none")),
        gateway_requests=_optional_int(value("gateway-requests"), "gateway-requests"),
        corpus_key_file=path("corpus-key-file"),
        corpus_key_env=value("corpus-key-env"),
        sign_key=path("sign-key"),
        scores_only=flag("scores-only"),
    )


def _label(raw: str | None) -> str | None:
    """A label becomes a node name, so it must not contain pytest's separators."""
    if raw is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", raw):
        raise SettingsError(f"--mteval-label must be letters, digits, '._+-', got {raw!r}")
    return raw


def shipped_or(path: Path | None, raw: str | None) -> Path | None:
    """``shipped:NAME`` names a corpus installed with pytest-mteval; anything else is a path."""
    from pytest_mteval.shipped_corpora import PREFIX, ShippedCorpusError, shipped_corpus

    if raw is None or not raw.startswith(PREFIX):
        return path
    try:
        return shipped_corpus(raw[len(PREFIX) :])
    except ShippedCorpusError as exc:
        raise SettingsError(str(exc)) from None


def _choice(option: str, raw: str, allowed: tuple[str, ...]) -> str:
    if raw not in allowed:
        raise SettingsError(f"--mteval-{option} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw


def _optional_int(raw: str | None, option: str) -> int | None:
    return None if raw is None else _number(int, option, raw, 1, None)


def _key_values(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, val = pair.partition("=")
        if not sep or not key:
            raise SettingsError(f"--mteval-method-arg expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = val
    return out


N = TypeVar("N", int, float)
#: The longest timeout accepted (a day): larger values overflow the event loop's timers.
MAX_TIMEOUT_S = 86_400.0


def _number(kind: type[N], option: str, raw: str, low: float | None, high: float | None) -> N:
    try:
        number = kind(raw)
    except ValueError:
        raise SettingsError(f"--mteval-{option} expects a number, got {raw!r}") from None
    if (
        number != number
        or not math.isfinite(number)
        or (low is not None and number < low)
        or (high is not None and number > high)
    ):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        bounds = "a finite number" if low is None and high is None else bounds
        raise SettingsError(f"--mteval-{option} must be {bounds}, got {raw!r}")
    return number
