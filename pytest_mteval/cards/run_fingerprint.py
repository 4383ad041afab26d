"""What identifies a run's configuration (spec §3.8), known before the run starts.

The card's fingerprint fields are read here, once, both when a card is built and when a sweep
asks, before translating anything, which fingerprint a run will have (to reuse its card).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest_mteval
from pytest_mteval.cards.fingerprint import fingerprint
from pytest_mteval.methods.protocol import DescribesPrompt
from pytest_mteval.run.run_state import RunState


def system_prompt(state: RunState) -> str:
    """The method's system prompt, or "" for methods without one."""
    method = state.method
    if isinstance(method, DescribesPrompt):
        return method.system_prompt(state.run_config)
    return ""


def identity_fields(state: RunState, prompt: str) -> dict[str, Any]:
    """The card fields of spec §3.8 besides the dataset's sha256, with the prompt given."""
    config = state.run_config
    return {
        "harness_version": pytest_mteval.__version__,
        "model_slug": config.model or f"method:{state.source.name}",
        "condition": config.condition,
        "temperature": config.temperature,
        "system_prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "tools_enabled": sorted(getattr(state.method, "tools_enabled", []) or []),
        "batch_size": state.settings.batch_size,
    }


def planned_fingerprint(state: RunState) -> str:
    """The fingerprint the card of this run will carry."""
    fields = identity_fields(state, system_prompt(state))
    return fingerprint({**fields, "dataset": {"sha256": state.corpus.sha256}})
