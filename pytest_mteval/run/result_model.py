"""The typed result at the method boundary: every field of a method's answer, checked once.

A method is code we do not trust. Its result for one entry is validated here, where results
come back, and nowhere later: a wrong type or range becomes that entry's error naming the
field and the type (``entry 42: usage.prompt_tokens must be an integer, got str``), so it is
never cached and never reaches the aggregation at the end of the session. The same module
checks what a method says about itself for the card (system prompt, tools, card fields) when
the run starts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from pytest_mteval.json_files import first_unencodable
from pytest_mteval.methods.protocol import MethodResult
from pytest_mteval.metrics.bounds import scoring_limit

#: Counts above 2**53 cannot travel through JSON readers that use doubles.
MAX_COUNT: Final = 2**53
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Amount = Annotated[float, Field(ge=0, allow_inf_nan=False)]
#: Keys of a result that only the harness sets (a method's own are dropped).
HARNESS_KEYS: Final = frozenset({"id", "cached", "truncated_for_scoring"})

_STRICT = ConfigDict(strict=True, extra="allow", frozen=True)


class UsageModel(BaseModel):
    """Token counts; any other key a method reports must be a count as well."""

    model_config = _STRICT
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    reasoning_tokens: Count | None = None
    cached_tokens: Count | None = None

    @model_validator(mode="after")
    def _extra_are_counts(self) -> UsageModel:
        for key, value in (self.model_extra or {}).items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise _FieldError(key, "must be an integer", value)
            if not 0 <= value <= MAX_COUNT:
                raise _FieldError(key, "must be a count from 0 to 2**53", value)
        return self


class ResultModel(BaseModel):
    """One entry's result as the method interface spec defines it (ids are matched before)."""

    model_config = _STRICT
    predicted: str | None = None
    raw_predicted: str | None = None
    error: str | None = None
    latency_s: Amount | None = None
    cost_usd: Amount | None = None
    usage: UsageModel | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_count: Count | None = None
    metadata: dict[str, Any] | None = None


class MethodFieldsModel(BaseModel):
    """What a method reports about itself for the run card."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    system_prompt: str = ""
    tools_enabled: list[str] = Field(default_factory=list)
    run_card_fields: dict[str, Any] = Field(default_factory=dict)


class _FieldError(ValueError):
    """A problem found by a custom check, carrying the field and the offending value."""

    def __init__(self, field: str, problem: str, value: Any) -> None:
        super().__init__(f"{field} {problem}, got {type_name(value)}")


class ResultProblem(ValueError):
    """Why a result was refused: one line naming the field and the value's type."""


def validate_result(entry_key: str, raw: Mapping[str, Any]) -> MethodResult:
    """``raw`` checked field by field, as a plain dict (JSON types only, no harness keys);
    raises :class:`ResultProblem` naming ``entry <key>``, the field and the type."""
    given = {k: v for k, v in raw.items() if k not in HARNESS_KEYS}
    for key in given:
        if not isinstance(key, str):
            raise ResultProblem(f"entry {entry_key}: a result key is {type_name(key)}, not text")
    try:
        model = ResultModel.model_validate(given)
    except ValidationError as exc:
        raise ResultProblem(f"entry {entry_key}: {describe(exc.errors()[0])}") from None
    out: dict[str, Any] = model.model_dump(exclude_unset=True)
    where = first_unencodable(out)
    if where is not None:
        raise ResultProblem(
            f"entry {entry_key}: {where or 'the result'} is not valid Unicode (a lone "
            "surrogate) or not a finite number"
        )
    try:  # the result travels to xdist's controller and into the card: plain JSON only
        json.dumps(out, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ResultProblem(f"entry {entry_key}: not plain JSON: {exc}") from None
    return out  # type: ignore[return-value]


def cut_for_scoring(source: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with ``predicted`` and ``raw_predicted`` cut to :func:`scoring_limit`, before
    anything else keeps, checks, ships or stores them; a cut result says so in
    ``truncated_for_scoring`` (the original lengths), a harness key no method can set."""
    limit = scoring_limit(source)
    out = {k: v for k, v in raw.items() if k != "truncated_for_scoring"}
    original: dict[str, int] = {}
    for field in ("predicted", "raw_predicted"):
        value = out.get(field)
        if isinstance(value, str) and len(value) > limit:
            original[f"{field}_chars"] = len(value)
            out[field] = value[:limit]
    if original:
        out["truncated_for_scoring"] = {"kept_chars": limit, **original}
    return out


def truncation_note(value: Any) -> dict[str, int] | None:
    """A stored ``truncated_for_scoring`` (a cache file's) when well formed, else None."""
    if not isinstance(value, dict) or not value:
        return None
    fine = all(
        isinstance(k, str) and type(v) is int and 0 <= v <= MAX_COUNT for k, v in value.items()
    )
    return dict(value) if fine else None


def validate_method_fields(
    name: str, system_prompt: Any, tools_enabled: Any, run_card_fields: Any
) -> MethodFieldsModel:
    """The method's self-description, or ``ValueError`` with one line naming the field."""
    if isinstance(tools_enabled, tuple | set | frozenset):
        tools_enabled = sorted(tools_enabled, key=str)  # any collection of names will do
    try:
        model = MethodFieldsModel.model_validate(
            {
                "system_prompt": system_prompt,
                "tools_enabled": tools_enabled,
                "run_card_fields": run_card_fields,
            }
        )
    except ValidationError as exc:
        raise ResultProblem(f"method {name!r}: {describe(exc.errors()[0])}") from None
    where = first_unencodable(model.model_dump())
    if where is not None:
        raise ResultProblem(f"method {name!r}: {where} is not valid Unicode (a lone surrogate)")
    try:
        json.dumps(model.run_card_fields, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ResultProblem(f"method {name!r}: run_card_fields is not plain JSON: {exc}") from None
    return model


_PHRASES: Final = {
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "greater_than_equal": "must not be negative",
    "less_than_equal": "is too large",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "bool_type": "must be true or false",
    "extra_forbidden": "is not a known field",
}


def describe(error: ErrorDetails) -> str:
    """``field.path must be X, got T`` from one pydantic error."""
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "value_error":
        message = str(error.get("ctx", {}).get("error", error["msg"]))
        return f"{where}.{message}" if where else message
    phrase = _PHRASES.get(error["type"], error["msg"])
    return f"{where or 'the result'} {phrase}, got {type_name(error['input'])}"


def type_name(value: Any) -> str:
    """The JSON-ish name of a value's type (``null`` for None)."""
    return "null" if value is None else type(value).__name__
