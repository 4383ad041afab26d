"""USD prices per million tokens, per model slug: the shipped table plus a user's override file.

Cost is a first-class result (benchmark spec §3.5), but prices move and tables age, so every
row names its source, an override file can correct or extend the table, and a model with no
known price costs None (unknown), never 0.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json

_DATE_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


class PriceError(MtevalError, ValueError):
    """A price file that cannot be used; the message names the file and the row."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens. Cached prompt tokens cost ``cached_input`` when it is known."""

    input: float
    output: float
    cached_input: float | None = None
    source: str = ""

    def cost_usd(self, usage: Mapping[str, Any]) -> float | None:
        """The cost of one request's usage; None when the usage is unknown (empty).

        Reasoning tokens are part of ``completion_tokens`` (the chat-completions convention,
        ``completion_tokens_details`` is a breakdown), and cached tokens are part of
        ``prompt_tokens``, so neither is added twice.
        """
        if not usage:
            return None
        prompt = int(usage.get("prompt_tokens", 0))
        cached = min(int(usage.get("cached_tokens", 0)), prompt)
        completion = int(usage.get("completion_tokens", 0))
        cached_rate = self.input if self.cached_input is None else self.cached_input
        total = (prompt - cached) * self.input + cached * cached_rate + completion * self.output
        return total / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    """The prices in force for a run, and where they came from (for the run card)."""

    models: Mapping[str, Price]
    origin: str

    def price_for(self, *model_ids: str | None) -> Price | None:
        """The first id with a price: the requested slug, then the id the endpoint reported,
        then that id without a trailing release date (``...-20251001``)."""
        for model_id in model_ids:
            if not model_id:
                continue
            for candidate in (model_id, _DATE_SUFFIX.sub("", model_id)):
                if candidate in self.models:
                    return self.models[candidate]
        return None

    def cost_usd(self, usage: Mapping[str, Any], *model_ids: str | None) -> float | None:
        price = self.price_for(*model_ids)
        return None if price is None else price.cost_usd(usage)


def load_prices(override: str | Path | None = None) -> PriceTable:
    """The shipped table, with the rows of ``override`` (same file shape) replacing or adding."""
    return _shipped() if not override else _with_override(str(override))


@lru_cache(maxsize=8)
def _with_override(override: str) -> PriceTable:
    """Read once per process and path: every batch of an LLM method asks for the table."""
    shipped = _shipped()
    path = Path(override)
    rows = _parse(_read(path), str(path))
    return PriceTable({**shipped.models, **rows}, f"{shipped.origin} + override {path}")


@lru_cache(maxsize=1)
def _shipped() -> PriceTable:
    text = resources.files("pytest_mteval").joinpath("data/prices.json").read_text("utf-8")
    raw = json.loads(text)
    return PriceTable(_parse(raw, "pytest_mteval/data/prices.json"), f"shipped {raw['compiled']}")


def _read(path: Path) -> Any:
    return read_json(path, "price file", PriceError)


def _parse(raw: Any, where: str) -> dict[str, Price]:
    models = raw.get("models") if isinstance(raw, dict) else None
    if not isinstance(models, dict):
        raise PriceError(f"{where}: a price file is an object with a 'models' object")
    return {slug: _price(row, f"{where}: models[{slug!r}]") for slug, row in models.items()}


def _price(row: Any, where: str) -> Price:
    if not isinstance(row, dict):
        raise PriceError(f"{where}: expected an object with 'input' and 'output'")
    cached = row.get("cached_input")
    return Price(
        input=_rate(row.get("input"), f"{where}: field 'input'"),
        output=_rate(row.get("output"), f"{where}: field 'output'"),
        cached_input=None if cached is None else _rate(cached, f"{where}: field 'cached_input'"),
        source=str(row.get("source", "")),
    )


def _rate(value: Any, where: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and number >= 0:
            return number
    raise PriceError(f"{where} must be a non-negative number of USD per million tokens")
