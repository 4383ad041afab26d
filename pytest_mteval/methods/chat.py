"""The shared shape of LLM methods: one chat conversation per entry, results with cost.

raw-llm, coached-llm and fst-gated differ only in their prompt and in what they do between
calls, so the plumbing (settings from the RunConfig, one client per batch, a deadline inside the
harness's batch timeout, usage and cost per entry, faults as per-entry errors) lives here once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mteval.errors import MtevalError
from pytest_mteval.llm.client import (
    ChatClient,
    ChatMessage,
    ChatSettings,
    Completion,
    LLMConfigError,
)
from pytest_mteval.llm.cost import Call, entry_cost, sum_usage
from pytest_mteval.llm.pricing import PriceError, PriceTable, load_prices
from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig

#: Names for the language codes of the shipped corpora, so prompts say "Plains Cree", not "crk".
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "se": "Northern Sami",
    "sn": "Shona", "pt": "Portuguese", "it": "Italian", "nl": "Dutch", "ru": "Russian",
    "amh": "Amharic", "arb": "Arabic", "bos": "Bosnian", "cat": "Catalan", "ceb": "Cebuano",
    "crk": "Plains Cree", "cym": "Welsh", "dan": "Danish", "deu": "German", "eng": "English",
    "eus": "Basque", "fao": "Faroese", "fra": "French", "fry": "Western Frisian",
    "glg": "Galician", "guj": "Gujarati", "hau": "Hausa", "haw": "Hawaiian",
    "hil": "Hiligaynon", "ibo": "Igbo", "ita": "Italian", "jpn": "Japanese", "kan": "Kannada",
    "kaz": "Kazakh", "lao": "Lao", "lug": "Ganda", "ltz": "Luxembourgish", "mal": "Malayalam",
    "mlt": "Maltese", "mon": "Mongolian", "mya": "Burmese", "nld": "Dutch", "pag": "Pangasinan",
    "pam": "Pampanga", "pan": "Punjabi", "por": "Portuguese", "que": "Quechua",
    "quy": "Ayacucho Quechua", "rus": "Russian", "sin": "Sinhala", "sme": "Northern Sami",
    "sna": "Shona", "spa": "Spanish", "tam": "Tamil", "tel": "Telugu", "tha": "Thai",
    "tir": "Tigrinya", "tuk": "Turkmen", "uzb": "Uzbek", "xho": "Xhosa", "yor": "Yoruba",
    "zsm": "Standard Malay", "zul": "Zulu",
}  # fmt: skip


class MethodSetupError(MtevalError, ValueError):
    """A method that cannot run with this configuration; every entry gets the message."""


def language_name(config: RunConfig, side: str) -> str:
    """Method arg ``source_name``/``target_name`` if given, else the code's name, else the code."""
    code = config.source_language if side == "source" else config.target_language
    given = config.method_args.get(f"{side}_name")
    return given or LANGUAGE_NAMES.get(code.lower(), code or f"the {side} language")


@dataclass(frozen=True)
class BatchContext:
    """What every entry of one translate() call shares."""

    client: ChatClient
    config: RunConfig
    prices: PriceTable
    deadline: float

    async def complete(self, messages: list[ChatMessage]) -> Completion:
        return await self.client.complete(messages, self.deadline)


class ChatMethod:
    """Base class: subclasses give ``system_prompt``; loops override ``translate_entry``."""

    def system_prompt(self, config: RunConfig) -> str:
        raise NotImplementedError

    def prepare(self, config: RunConfig) -> None:
        """Load what the method needs (coaching file, analyzer); raise MethodSetupError."""

    def preflight(self, config: RunConfig) -> None:
        """Once per run, before any item: model, key, prices, endpoint, then ``prepare``."""
        from pytest_mteval.llm.chat_preflight import check_chat_setup

        self.prepare(config)
        check_chat_setup(config)

    def max_calls_per_entry(self, config: RunConfig) -> int:
        """Upper bound of requests per entry, for the dry run's cost estimate (spec §10)."""
        return 1

    def user_message(self, entry: MethodEntry, config: RunConfig) -> str:
        return entry.get("source", "")

    def entry_metadata(self, config: RunConfig) -> dict[str, Any]:
        """Facts recorded on every result (e.g. coaching_data_sha256)."""
        return {}

    def run_card_fields(self, config: RunConfig) -> dict[str, Any]:
        """Method-configuration fields of the run card (§3.2) this method can vouch for:
        coaching_data_sha256, tools_enabled, max_retries, fst_version."""
        return {"tools_enabled": []}

    def messages(self, entry: MethodEntry, config: RunConfig) -> list[ChatMessage]:
        return [
            {"role": "system", "content": self.system_prompt(config)},
            {"role": "user", "content": self.user_message(entry, config)},
        ]

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        try:
            settings = ChatSettings.from_run_config(config)
            prices = load_prices(config.method_args.get("prices"))
            self.prepare(config)
        except (LLMConfigError, PriceError, MethodSetupError) as exc:
            return [failed(entry, str(exc)) for entry in entries]
        # Finish inside the harness's batch timeout so that paid results come back.
        deadline = time.monotonic() + config.timeout_s - min(5.0, 0.1 * config.timeout_s)
        async with ChatClient(settings) as client:
            batch = BatchContext(client, config, prices, deadline)
            return list(await asyncio.gather(*(self.translate_entry(batch, e) for e in entries)))

    async def translate_entry(self, batch: BatchContext, entry: MethodEntry) -> MethodResult:
        completion = await batch.complete(self.messages(entry, batch.config))
        return self.result(batch, entry, [completion])

    def result(
        self,
        batch: BatchContext,
        entry: MethodEntry,
        completions: Sequence[Completion],
        chosen: Completion | None = None,
        tool_calls: Sequence[dict[str, Any]] = (),
        extra: dict[str, Any] | None = None,
    ) -> MethodResult:
        """One result from every completion the entry needed; ``chosen`` gives the text
        (default: the last one)."""
        final = chosen or completions[-1]
        paid = [c for c in completions if c.usage or c.text is not None or c.reported_cost_usd]
        model = batch.config.model
        calls = [Call(c.usage.as_dict(), c.reported_cost_usd, c.model_id) for c in paid]
        cost = entry_cost(calls, batch.prices, model)
        metadata: dict[str, Any] = {
            "model_id": next((c.model_id for c in reversed(completions) if c.model_id), None),
            "requests": sum(c.attempts for c in completions),
            "cost_source": cost.source,
            "finish_reason": final.finish_reason,
            **self.entry_metadata(batch.config),
            **(extra or {}),
        }
        if cost.note:
            metadata["cost_note"] = cost.note
        return {
            "id": entry.get("id", ""),
            "predicted": final.text.strip() if final.text is not None else None,
            "raw_predicted": final.text,
            "latency_s": sum(c.latency_s for c in completions),
            "usage": sum_usage(c.usage for c in completions),
            "cost_usd": cost.cost_usd,
            "error": None if final.text is not None else final.error,
            "tool_calls": list(tool_calls),
            "tool_call_count": len(tool_calls),
            "metadata": metadata,
        }


def failed(entry: MethodEntry, message: str) -> MethodResult:
    """A result for an entry the method could not even try."""
    return {
        "id": entry.get("id", ""),
        "predicted": None,
        "raw_predicted": None,
        "latency_s": 0.0,
        "usage": {},
        "cost_usd": None,
        "error": message,
        "tool_calls": [],
        "tool_call_count": 0,
        "metadata": {},
    }
