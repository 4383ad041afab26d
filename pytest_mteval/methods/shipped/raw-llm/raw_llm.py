"""raw-llm: a chat model with a minimal instruction and nothing else (method class raw-llm).

The baseline every other method is measured against, so the prompt says only what is needed
to get a bare translation back.
"""

from __future__ import annotations

from pytest_mteval.methods.chat import ChatMethod, language_name
from pytest_mteval.methods.protocol import RunConfig


class RawLLMMethod(ChatMethod):
    """Translate each entry with one request and a one-sentence instruction."""

    def system_prompt(self, config: RunConfig) -> str:
        source, target = language_name(config, "source"), language_name(config, "target")
        return (
            f"Translate the user's text from {source} to {target}. Reply with the translation only."
        )
