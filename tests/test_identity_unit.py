"""``cards.identity``: the fingerprint fields a run is known by before it starts (spec §3.8).

Session tests reach this module only through a whole run; these build the few attributes of a
run state it reads, and recompute the expected fields and fingerprint from the documented
encoding (conftest.documented_fingerprint) with hashlib.
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any, ClassVar, cast

import pytest
from conftest import documented_fingerprint

import pytest_mteval
from pytest_mteval.cards import run_fingerprint
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.run.run_state import RunState


class Prompted:
    """A method that describes its system prompt, which depends on the run's configuration."""

    tools_enabled: ClassVar[list[str]] = ["lookup", "fst", "dictionary"]

    async def translate(self, entries: Any, config: RunConfig) -> Any:  # pragma: no cover
        return []

    def system_prompt(self, config: RunConfig) -> str:
        return f"Traduis de {config.source_language} en {config.target_language} — sans détour."


class Plain:
    """A method without a system prompt or tools."""

    async def translate(self, entries: Any, config: RunConfig) -> Any:  # pragma: no cover
        return []


def _state(method: object, model: str | None = "gpt-x", **config: Any) -> RunState:
    run_config = RunConfig(
        source_language="eng",
        target_language="fra",
        model=model,
        temperature=config.pop("temperature", 0.3),
        condition=config.pop("condition", "few-shot"),
    )
    state = SimpleNamespace(
        method=method,
        run_config=run_config,
        source=SimpleNamespace(name="my-method"),
        settings=SimpleNamespace(batch_size=config.pop("batch_size", 7)),
        corpus=SimpleNamespace(sha256="c" * 64),
    )
    return cast(RunState, state)


def test_the_system_prompt_is_the_methods_own_for_this_run():
    state = _state(Prompted())
    assert run_fingerprint.system_prompt(state) == "Traduis de eng en fra — sans détour."
    assert run_fingerprint.system_prompt(_state(Plain())) == ""


def test_the_identity_fields_are_spec_3_8s():
    prompt = "Traduis — vite."
    fields = run_fingerprint.identity_fields(_state(Prompted()), prompt)
    assert fields == {
        "harness_version": pytest_mteval.__version__,
        "model_slug": "gpt-x",
        "condition": "few-shot",
        "temperature": 0.3,
        "system_prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "tools_enabled": ["dictionary", "fst", "lookup"],
        "batch_size": 7,
    }


@pytest.mark.parametrize("model", [None, ""])
def test_a_run_without_a_model_is_named_after_its_method(model):
    fields = run_fingerprint.identity_fields(_state(Plain(), model=model), "")
    assert fields["model_slug"] == "method:my-method"
    assert fields["tools_enabled"] == []
    assert fields["system_prompt_sha256"] == hashlib.sha256(b"").hexdigest()


def test_a_method_whose_tools_are_none_has_an_empty_list():
    method = Plain()
    method.tools_enabled = None  # type: ignore[attr-defined]
    assert run_fingerprint.identity_fields(_state(method), "")["tools_enabled"] == []


def test_the_planned_fingerprint_is_the_documented_one_of_the_card_to_come():
    state = _state(Prompted(), condition="naive", temperature=0.0, batch_size=3)
    prompt = "Traduis de eng en fra — sans détour."
    card = {
        "dataset": {"sha256": "c" * 64},
        "model_slug": "gpt-x",
        "condition": "naive",
        "system_prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "temperature": 0.0,
        "harness_version": pytest_mteval.__version__,
        "batch_size": 3,
        "tools_enabled": ["lookup", "fst", "dictionary"],
    }
    assert run_fingerprint.planned_fingerprint(state) == documented_fingerprint(card)
    other = _state(Plain(), condition="naive", temperature=0.0, batch_size=3)
    assert run_fingerprint.planned_fingerprint(other) == documented_fingerprint(
        {
            **card,
            "model_slug": "gpt-x",
            "system_prompt_sha256": hashlib.sha256(b"").hexdigest(),
            "tools_enabled": [],
        }
    )
