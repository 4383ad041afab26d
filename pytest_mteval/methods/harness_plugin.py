"""A reference-harness plugin's method, run unchanged behind our protocol.

Its methods read fields of that harness's own ``RunConfig`` (``config.source_field``,
``config.target_lang``, ``config.max_tokens``...) and return result dicts whose ``usage`` may
hold a ``cost`` in USD. The shim hands the method a :class:`HarnessRunConfig` holding every
field that harness's run reports record under ``config`` (its RunConfig as written by its
runner), filled from our run where we know the value and with that harness's defaults where we
do not; our own RunConfig's fields stay readable on it too. Results come back with ``cost``
moved to ``cost_usd``, where our result model reads it (a price is no token count).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig
from pytest_mteval.option_catalog import float_default, int_default


@dataclass(frozen=True)
class HarnessRunConfig:
    """The reference harness's RunConfig fields (as its ``*_report.json`` ``config`` lists
    them), over our RunConfig, whose fields are read through (``method_args``...)."""

    ours: RunConfig
    dataset: str = "all"
    dataset_id: str = ""
    entry_ids: list[str] | None = None
    corpus_path: str | None = None
    source_file: str | None = None
    reference_file: str | None = None
    #: Our entries always carry the source as ``source`` (renamed fields are renamed before).
    source_field: str = "source"
    target_field: str = "reference"
    source_lang: str = ""
    target_lang: str = ""
    segment_names: list[str] = field(default_factory=list)
    model: str | None = None
    max_tokens: int = 32768
    tools_enabled: bool = False
    tools_list: list[str] | None = None
    max_tool_rounds: int = 8
    #: Our harness caches translations itself; the method must not keep a cache of its own.
    cache_enabled: bool = False
    cache_dir: str = ""
    #: Always our run's (``harness_config``); unset, our RunConfig's, the options' defaults.
    batch_size: int = int_default("batch-size")
    concurrency: int = int_default("concurrency")
    prompt_version: str = "naive"
    custom_prompt_path: str | None = None
    coaching_file: str | None = None
    style_profile: str | None = None
    post_hooks: list[str] = field(default_factory=list)
    fst_retries: int = 0
    output_dir: str = ""
    run_name: str | None = None
    temperature: float = float_default("temperature")
    dry_run: bool = False
    assume_yes: bool = True
    method_path: str | None = None
    process_name: str | None = None
    champollion_config_path: str | None = None
    champollion_cards_dir: str | None = None
    target_lang_code: str = ""

    def __getattr__(self, name: str) -> Any:
        """Our RunConfig's fields (``method_args``, ``timeout_s``...) read through."""
        if name == "ours":
            raise AttributeError(name)
        return getattr(self.ours, name)


def harness_config(config: RunConfig) -> HarnessRunConfig:
    """The reference harness's view of our run's configuration."""
    return HarnessRunConfig(
        ours=config,
        source_lang=config.source_language,
        target_lang=config.target_language,
        target_lang_code=config.target_language,
        model=config.model,
        batch_size=config.batch_size,
        concurrency=config.concurrency,
        temperature=config.temperature,
        prompt_version=config.condition,
        method_path=config.method_dir or None,
    )


def adapted_result(item: Any) -> Any:
    """One result dict as our result model reads it: ``usage.cost`` becomes ``cost_usd``."""
    if not isinstance(item, Mapping):
        return item  # the harness's own checks name what is wrong with it
    result = dict(item)
    usage = result.get("usage")
    if isinstance(usage, Mapping) and "cost" in usage:
        usage = dict(usage)
        cost = usage.pop("cost")
        result["usage"] = usage
        if result.get("cost_usd") is None:
            result["cost_usd"] = float(cost) if isinstance(cost, int) and cost >= 0 else cost
    return result


class HarnessPluginMethod:
    """Our TranslationMethod around a reference-harness method object."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        #: What its card says of itself (``method_card()``), kept for the run card.
        self.harness_card = _own_card(inner)

    def __getattr__(self, name: str) -> Any:
        """Optional parts (``preflight``, ``system_prompt``, ``cacheable``) are the method's."""
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        raw = await self.inner.translate(entries, harness_config(config))
        if not isinstance(raw, list):
            return raw  # type: ignore[no-any-return]  # the runner names the wrong type
        return [adapted_result(item) for item in raw]

    def run_card_fields(self, config: RunConfig) -> dict[str, Any]:
        """The method's own card (its ``method_card()``), under the key that harness uses."""
        own = getattr(self.inner, "run_card_fields", None)
        fields: dict[str, Any] = dict(own(config)) if callable(own) else {}
        if self.harness_card is not None:
            fields.setdefault("harness_method_card", self.harness_card)
        return fields


def _own_card(inner: Any) -> dict[str, Any] | None:
    card = getattr(inner, "method_card", None)
    if not callable(card):
        return None
    try:
        value = card()
    except Exception:  # a card is a description: one that fails is left out, never fatal
        return None
    return dict(value) if isinstance(value, Mapping) else None
