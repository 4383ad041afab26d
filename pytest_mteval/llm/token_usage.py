"""The tokens one completion reported, typed for method authors and readable as a mapping.

Authors write ``completion.usage.prompt_tokens``; the harness sums usages as mappings and puts
them on the card as the spec's ``usage`` object. One value serves both, so neither side
converts. An endpoint that reported no usage gives an empty mapping: unknown, not zero.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pytest_mteval.methods.protocol import Usage

FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")


@dataclass(frozen=True, eq=False)
class TokenUsage(Mapping[str, int]):
    """Token counts as attributes; ``known`` is False when the endpoint reported none."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    known: bool = False

    @classmethod
    def of(cls, usage: Mapping[str, object]) -> TokenUsage:
        """From a plain usage mapping (the card's shape); empty means unknown."""
        if not usage:
            return cls()
        counts = {name: _count(usage.get(name)) for name in FIELDS}
        return cls(**counts, known=True)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens (reasoning and cached are inside those)."""
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> Usage:
        """The spec's ``usage`` object: the four counts, or {} when unknown."""
        if not self.known:
            return Usage()
        return Usage(
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            reasoning_tokens=self.reasoning_tokens,
            cached_tokens=self.cached_tokens,
        )

    def __getitem__(self, name: str) -> int:
        if not self.known or name not in FIELDS:
            raise KeyError(name)
        value: int = getattr(self, name)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(FIELDS if self.known else ())

    def __len__(self) -> int:
        return len(FIELDS) if self.known else 0

    def __repr__(self) -> str:
        if not self.known:
            return "TokenUsage(unknown)"
        counts = ", ".join(f"{name}={getattr(self, name)}" for name in FIELDS)
        return f"TokenUsage({counts})"


def _count(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
