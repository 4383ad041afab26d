"""The typed Settings read from the options and ini keys (declared in ``option_catalog.py``,
whose defaults, bounds and choices this reads).

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
from pytest_mteval.option_catalog import spec
from pytest_mteval.run.run_settings import Settings
from pytest_mteval.scoring.gate_options import (
    EntryGateOptions,
    GateOptionError,
    GateOptions,
    split_metric_gate,
)

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

    def number(name: str) -> float | None:
        raw = value(name)
        return None if raw is None else _bounded(float, name, raw)

    def typed(kind: type[N], name: str) -> N:
        """The option's value, else its default, as a number within its bounds."""
        return _bounded(kind, name, value(name) or _default(name))

    def choice(name: str) -> str:
        return _choice(name, value(name) or _default(name), spec(name).choices)

    try:
        gate = GateOptions(
            max_drop=number("max-drop"),
            fail_under=number("fail-under"),
            significance=number("significance") or 0.0,
        )
        metric_gates = tuple(split_metric_gate(g) for g in values("gate"))
    except GateOptionError as exc:
        raise SettingsError(f"mteval gate option: {exc}") from None
    raw_keep = value("keep-runs")
    raw_runtime = value("runtime")
    if no_gate and config.getoption(_dest("update-baseline")):
        raise SettingsError("--mteval-update-baseline needs a baseline path, not 'none'")
    return Settings(
        corpus=shipped_or(path("corpus"), value("corpus")),
        method=value("method"),
        method_base=base_of("method"),
        method_card=path("method-card"),
        method_args=_key_values(values("method-arg")),
        segments=tuple(values("segment")),
        activate_held_out=flag("activate-held-out"),
        domains=tuple(values("domain")),
        difficulties=tuple(_bounded(int, "difficulty", v) for v in values("difficulty")),
        batch_size=typed(int, "batch-size"),
        concurrency=typed(int, "concurrency"),
        timeout_s=typed(float, "timeout"),
        score_timeout_s=typed(float, "score-timeout"),
        model=value("model"),
        temperature=typed(float, "temperature"),
        condition=value("condition"),
        run_card=path("run-card"),
        fst=path("fst"),
        prices=path("prices"),
        request_timeout_s=number("request-timeout"),
        baseline=path("baseline"),
        no_gate=no_gate,
        gate=gate,
        metric_gates=metric_gates,
        entry_gate=EntryGateOptions(
            entry_max_drop=number("entry-max-drop") or 0.0,
            entry_min_chrf=number("entry-min-chrf"),
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
        keep_runs=None if raw_keep is None else _bounded(int, "keep-runs", raw_keep),
        html=path("html"),
        runner=choice("runner"),
        sandbox=choice("sandbox"),
        runtime=None if raw_runtime is None else _choice("runtime", raw_runtime, RUNTIMES),
        gateway_requests=_optional_int(value("gateway-requests"), "gateway-requests"),
        corpus_key_file=path("corpus-key-file"),
        corpus_key_env=value("corpus-key-env"),
        sign_key=path("sign-key"),
        review_sample_key=path("review-sample-key"),
        review_sample_size=typed(int, "review-sample-size"),
        steward_authorisation=path("steward-authorisation"),
        steward_key=path("steward-key"),
        scores_only=flag("scores-only"),
        source_field=value("source-field") or _default("source-field"),
        reference_field=value("reference-field") or _default("reference-field"),
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


RUNTIMES = spec("runtime").choices


def _dest(name: str) -> str:
    return spec(name).dest


def _default(name: str) -> str:
    """The table's default, used where the option and the ini key are both unset or empty."""
    return str(spec(name).default)


def _choice(option: str, raw: str, allowed: tuple[str, ...]) -> str:
    if raw not in allowed:
        raise SettingsError(f"--mteval-{option} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw


def _optional_int(raw: str | None, option: str) -> int | None:
    return None if raw is None else _bounded(int, option, raw)


def _key_values(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, val = pair.partition("=")
        if not sep or not key:
            raise SettingsError(f"--mteval-method-arg expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = val
    return out


N = TypeVar("N", int, float)


def _bounded(kind: type[N], option: str, raw: str) -> N:
    """``raw`` as a number within the table's bounds of ``--mteval-OPTION``."""
    return _number(kind, option, raw, spec(option).low, spec(option).high)


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
