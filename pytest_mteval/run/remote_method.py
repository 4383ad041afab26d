"""The method as the harness sees it when it runs in a runner process: what the runner
reported about it (prompt, card fields, tools, cacheability), never its code or objects."""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig
from pytest_mteval.run.result_model import ResultProblem
from pytest_mteval.run.runner_client import ProcessBackend


class RemoteMethod:
    """Answers the harness's questions from the runner's description; ``translate`` goes to
    the runner, so a test using the ``mteval_method`` fixture still works."""

    def __init__(self, backend: ProcessBackend) -> None:
        self._backend = backend
        self._described: dict[str, Any] = backend.description
        self.class_name = str(self._described.get("class_name", "?"))
        # as the method reported them: the harness checks their types (result_model)
        self.tools_enabled: Any = self._value("tools_enabled", [])
        self.cacheable = bool(self._value("cacheable", True))

    def __repr__(self) -> str:
        return f"<{self.class_name} in a runner process ({self._backend.launch.label})>"

    def _value(self, key: str, default: Any) -> Any:
        error = self._described.get("errors", {}).get(key)
        if error and str(error).startswith(f"{key} is not plain JSON"):
            raise ResultProblem(f"method {self._backend.name!r}: {error}")
        if error:
            raise RuntimeError(error)
        return self._described.get(key, default)

    def system_prompt(self, config: RunConfig) -> str:
        prompt: str = self._value("system_prompt", "")  # checked by validate_method_fields
        return prompt

    def run_card_fields(self, config: RunConfig) -> dict[str, Any]:
        fields: dict[str, Any] = self._value("run_card_fields", {})  # checked likewise
        return fields

    def max_calls_per_entry(self, config: RunConfig) -> int:
        return int(self._value("max_calls_per_entry", 1))

    async def translate(self, entries: list[MethodEntry], config: RunConfig) -> list[MethodResult]:
        def call() -> list[MethodResult]:
            # the runner never receives references: a placeholder satisfies the Entry model
            batch = [Entry.model_validate({"reference": "(withheld)", **e}) for e in entries]
            results, _ = self._backend.collect(self._backend.submit(batch, config))
            return [results[entry.key] for entry in batch]

        return await asyncio.to_thread(call)
