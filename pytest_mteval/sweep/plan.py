"""A sweep file (TOML) and the combinations it declares (benchmark spec §6.2).

A sweep is the systematic production of run cards over a declared parameter space. The file
names the corpora, the methods and the axes; every combination of axis values, less the
declared exclusions, is one ordinary run with its own card::

    [sweep]
    corpus = "corpora/eng-sme-tatoeba-dev.json"     # or a list
    method = "raw-llm"                                # or a list
    budget_usd = 5.0                                  # refuse a larger estimate
    concurrency = 64                                  # requests in flight, whole sweep
    output = ".mteval/sweeps/naive"                   # default .mteval/sweeps/<file stem>
    repeats = 3                                       # each combination 3 times, cache off
    baseline = ".mteval/baseline.json"                # gate each run (default: none, even
                                                      # when the ini configures a gate)

    [axes]
    model = ["google/gemini-2.5-flash", "openai/gpt-4.1-mini"]
    temperature = [0.0, 0.3]
    prompt_version = ["v1", "v2"]                     # any other axis is a method arg

    [method_args]                                     # the same for every combination
    base_url = "https://openrouter.ai/api/v1"

    [[exclude]]                                       # combinations to leave out
    model = "openai/gpt-4.1-mini"
    temperature = 0.3

Axes ``model``, ``temperature``, ``condition`` and ``batch_size`` are harness options; every
other axis (``prompt_version``, ``coaching``, ``tools``, ...) reaches the method as a method
arg of that name, which the method must declare and interpret.

Paths are relative to the sweep file; ``shipped:NAME`` names a corpus shipped with the package.
With ``repeats = N`` (default 1) every combination runs N times, each repeat labelled
``<label>_r<i>`` and run with the translation cache off, so that the matrix shows each
configuration's mean and spread (spec §1.3). Each run is labelled by the values of the axes
that vary, every part a slug of any name (:func:`label_part`: ``flores head (v2).json`` is
``flores-head-v2``), unique in the sweep.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pytest_mteval.errors import MtevalError
from pytest_mteval.option_catalog import int_default

if TYPE_CHECKING:
    from pytest_mteval.sweep.shards import Shard

#: Axes that are harness options, with the option each one sets.
HARNESS_AXES = {
    "model": "--mteval-model",
    "temperature": "--mteval-temperature",
    "condition": "--mteval-condition",
    "batch_size": "--mteval-batch-size",
}
Scalar = str | int | float | bool


class SweepError(MtevalError):
    """A sweep file that cannot be used; the message names the file and the field."""


class _Sweep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    corpus: list[str] = Field(min_length=1)
    method: list[str] = Field(min_length=1)
    budget_usd: float | None = Field(default=None, ge=0)
    #: The whole sweep's requests in flight; unset, a lone run's (``--mteval-concurrency``).
    concurrency: int = Field(default=int_default("concurrency"), ge=1, le=10_000)
    runs_at_once: int | None = Field(default=None, ge=1, le=256)
    output: str | None = None
    name: str | None = None
    repeats: int = Field(default=1, ge=1, le=100)
    baseline: str | None = None

    @field_validator("corpus", "method", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class _SweepFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sweep: _Sweep
    axes: dict[str, list[Scalar]] = Field(default_factory=dict)
    method_args: dict[str, Scalar] = Field(default_factory=dict)
    exclude: list[dict[str, Scalar]] = Field(default_factory=list)

    @field_validator("axes")
    @classmethod
    def _non_empty_axes(cls, axes: dict[str, list[Scalar]]) -> dict[str, list[Scalar]]:
        for name, values in axes.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise ValueError(f"axis name {name!r} must be an identifier")
            if not values:
                raise ValueError(f"axis {name!r} has no values")
            if len(set(map(_text, values))) != len(values):
                raise ValueError(f"axis {name!r} repeats a value")
        return axes


@dataclass(frozen=True)
class Combination:
    """One run of the sweep: its corpus, method, axis values and a label naming it."""

    label: str
    corpus: Path
    method: str
    values: dict[str, Scalar]
    method_args: dict[str, Scalar] = field(default_factory=dict)
    #: 1..N when the sweep repeats each combination (0: not repeated), and the label the
    #: repeats of one configuration share.
    repeat: int = 0
    configuration: str = ""
    #: The sweep's baseline; "none": the ini's gate is not inherited (plugin/options.py).
    baseline: str = "none"

    def pytest_args(self) -> list[str]:
        """The options of this run, in the order a person would type them."""
        args = [f"--mteval-corpus={self.corpus}", f"--mteval-method={self.method}"]
        args.append(f"--mteval-baseline={self.baseline}")
        for axis, value in self.values.items():
            if axis in HARNESS_AXES:
                args.append(f"{HARNESS_AXES[axis]}={_text(value)}")
        fixed = dict(self.method_args)
        fixed.update((a, v) for a, v in self.values.items() if a not in HARNESS_AXES)
        args += [f"--mteval-method-arg={key}={_text(value)}" for key, value in fixed.items()]
        if self.repeat:
            args.append("--mteval-no-cache")  # a repeat served from the cache measures nothing
        return args


@dataclass(frozen=True)
class SweepPlan:
    """Every combination of a sweep file, with the sweep's budget and concurrency."""

    path: Path
    output: Path
    combinations: list[Combination]
    budget_usd: float | None
    concurrency: int
    runs_at_once: int | None
    axes: dict[str, list[Scalar]]
    #: The shard this machine runs (``sweep/shards.py``; None: the whole sweep), and the
    #: labels of the whole sweep, so that a merge can tell which combinations no shard ran.
    shard: Shard | None = None
    planned_labels: tuple[str, ...] = ()


def load_plan(path: Path, base: Path) -> SweepPlan:
    """Read a sweep file; relative corpus and output paths are relative to the file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepError(f"{path}: cannot read the sweep file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: not valid TOML ({exc})") from None
    try:
        parsed = _SweepFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise SweepError(f"{path}: field {where}: {first['msg']}") from None
    folder = path.parent
    axes: dict[str, list[Scalar]] = {
        "corpus": list(parsed.sweep.corpus),
        "method": list(parsed.sweep.method),
    }
    axes.update(parsed.axes)
    for rule in parsed.exclude:
        unknown = set(rule) - set(axes)
        if unknown:
            raise SweepError(f"{path}: exclude names unknown axes {sorted(unknown)}")
    combinations = []
    names = list(axes)
    baseline = parsed.sweep.baseline or "none"
    if baseline.lower() != "none":
        baseline = str((folder / baseline).resolve())
    for values in itertools.product(*(axes[name] for name in names)):
        chosen = dict(zip(names, values, strict=True))
        if any(
            all(_text(chosen[k]) == _text(v) for k, v in rule.items()) for rule in parsed.exclude
        ):
            continue
        corpus, method = str(chosen.pop("corpus")), str(chosen.pop("method"))
        combinations.append(
            Combination(
                label="",
                corpus=_corpus_ref(corpus, folder),
                method=_method_ref(method, folder),
                values=chosen,
                method_args=dict(parsed.method_args),
                baseline=baseline,
            )
        )
    if not combinations:
        raise SweepError(f"{path}: every combination is excluded")
    output = parsed.sweep.output or str(Path(".mteval") / "sweeps" / path.stem)
    return SweepPlan(
        path=path,
        output=(base / output) if not Path(output).is_absolute() else Path(output),
        combinations=_repeated(_labelled(combinations, axes), parsed.sweep.repeats),
        budget_usd=parsed.sweep.budget_usd,
        concurrency=parsed.sweep.concurrency,
        runs_at_once=parsed.sweep.runs_at_once,
        axes={k: v for k, v in axes.items() if len(v) > 1},
    )


def _matches(chosen: dict[str, Scalar], rule: dict[str, Scalar]) -> bool:
    return all(_text(chosen[axis]) == _text(value) for axis, value in rule.items())


def _corpus_ref(corpus: str, folder: Path) -> Path:
    """A corpus file relative to the sweep file; ``shipped:NAME`` as it is (the run resolves
    it, and its item ids name it so)."""
    return Path(corpus) if corpus.startswith("shipped:") else (folder / corpus).resolve()


def _method_ref(method: str, folder: Path) -> str:
    """A method folder relative to the sweep file, or a registered name as it is."""
    candidate = folder / method
    return str(candidate.resolve()) if (candidate / "method.json").is_file() else method


#: The longest part of a label, and the longest label: a label names files and folders.
PART_MAX, LABEL_MAX = 48, 120


def _labelled(combinations: list[Combination], axes: dict[str, list[Scalar]]) -> list[Combination]:
    """Labels made of the values of the axes that vary, unique and safe in node ids and file
    names, whatever the corpus files, methods and values are called (see :func:`label_part`).
    A label another run already has, or one longer than ``LABEL_MAX``, gets ``_`` and six hex
    digits of a hash of its run's corpus, method and values (then ``_2``, ``_3``... if that
    is taken too: the same corpus listed twice)."""
    varying = [name for name, values in axes.items() if len(values) > 1]
    out: list[Combination] = []
    seen: set[str] = set()
    for combo in combinations:
        parts = []
        for name in varying:
            if name == "corpus":
                parts.append(label_part(combo.corpus.stem.removeprefix("shipped:")))
            elif name == "method":
                parts.append(label_part(Path(combo.method).name))
            else:
                parts.append(_slug(name, combo.values[name]))
        label = "_".join(parts) or "run"
        if label in seen or len(label) > LABEL_MAX:
            what = repr((str(combo.corpus), combo.method, sorted(combo.values.items())))
            digest = hashlib.sha256(what.encode("utf-8", "surrogatepass")).hexdigest()
            label = f"{label[: LABEL_MAX - 10]}_{digest[:6]}"
        base, count = label, 2
        while label in seen:
            label, count = f"{base}_{count}", count + 1
        seen.add(label)
        out.append(replace(combo, label=label))
    return out


def _repeated(combinations: list[Combination], repeats: int) -> list[Combination]:
    """Each combination ``repeats`` times (``<label>_r1``...), or as it is for 1."""
    if repeats == 1:
        return combinations
    return [
        dataclasses.replace(c, label=f"{c.label}_r{i}", repeat=i, configuration=c.label)
        for c in combinations
        for i in range(1, repeats + 1)
    ]


def label_part(text: str) -> str:
    """One part of a run's label, from any name: accents dropped (NFKD, combining marks
    removed), every run of characters other than ASCII letters, digits, ``.``, ``+`` and
    ``-`` made one ``-``, cut to ``PART_MAX`` characters, ``-``, ``.`` and ``+`` stripped
    from both ends; ``x`` when nothing is left (``日本語``, ``..``)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    slug = re.sub(r"[^A-Za-z0-9.+-]+", "-", folded, flags=re.ASCII).strip("-.+")
    return slug[:PART_MAX].strip("-.+") or "x"


def _slug(axis: str, value: Scalar) -> str:
    """An axis value's part: the text after its last ``/`` (a model's name without its
    provider), ``t`` before a temperature and ``b`` before a batch size."""
    prefix = {"temperature": "t", "batch_size": "b"}.get(axis, "")
    return f"{prefix}{label_part(_text(value).rsplit('/', 1)[-1])}"


def _text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
