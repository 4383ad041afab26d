"""The TranslationMethod protocol: the one boundary between the harness and a method.

Everything that crosses it is plain JSON-serializable data, so that a method can later run in a
separate, network-less process (benchmark spec §8.2) without changing this contract.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, TypedDict, runtime_checkable

from pytest_mteval.option_catalog import float_default, int_default

#: Fields of a corpus entry a method may see. References, variants, gold analyses and notes
#: never cross the boundary (spec §8, sovereignty).
SOURCE_SIDE_FIELDS: tuple[str, ...] = (
    "id",
    "source",
    "segment",
    "difficulty",
    "provenance",
    "register",
    "context",
    "domain",
    "variant_class",
    "terms",
)


class MethodEntry(TypedDict, total=False):
    """A corpus entry as a method receives it: source side only."""

    id: str | int
    source: str
    segment: str
    difficulty: int
    provenance: str
    register: str
    context: str
    domain: str
    variant_class: str
    terms: dict[str, str]


class Usage(TypedDict, total=False):
    """Token counts reported for one entry's translation."""

    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cached_tokens: int


class MethodResult(TypedDict, total=False):
    """One translated entry, as the method interface spec defines it."""

    id: str | int
    predicted: str | None
    raw_predicted: str | None
    latency_s: float | None
    usage: Usage
    cost_usd: float | None
    error: str | None
    tool_calls: list[dict[str, Any]]
    tool_call_count: int
    metadata: dict[str, Any]
    #: Set by the harness only: served from the cache / re-made because its cache file was bad.
    cached: bool
    cache_rejected: bool
    #: Set by the harness only: where the method raised (``run/method_traceback.py``).
    traceback: dict[str, str]
    #: Set by the harness only: the prediction was cut for scoring (run/result_model.py).
    truncated_for_scoring: dict[str, int]


@dataclass(frozen=True)
class RunConfig:
    """What a method is told about the run. JSON-serializable by construction."""

    source_language: str = ""
    target_language: str = ""
    model: str | None = None
    temperature: float = float_default("temperature")
    condition: str = "baseline"
    batch_size: int = int_default("batch-size")
    concurrency: int = int_default("concurrency")
    timeout_s: float = 120.0
    max_retries: int = 0
    method_args: dict[str, str] = field(default_factory=dict)
    method_dir: str = ""
    fst_path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class TranslationMethod(Protocol):
    """Structural protocol: any object with this coroutine is a method; no base class needed."""

    async def translate(
        self, entries: list[MethodEntry], config: RunConfig
    ) -> list[MethodResult]: ...


@runtime_checkable
class DescribesPrompt(Protocol):
    """Optional: a method that uses a system prompt says which, for the run card (§3.2)."""

    def system_prompt(self, config: RunConfig) -> str: ...


@runtime_checkable
class Preflight(Protocol):
    """Optional: check the configuration once, before any item runs (key present, model set,
    files present, endpoint reachable). Raise with a one-line message to stop the session at
    start with a usage error; the harness skips it on dry runs and on xdist workers."""

    def preflight(self, config: RunConfig) -> None: ...
