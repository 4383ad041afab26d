"""fst-gated: translate, check every word with the target language's morphological analyzer,
and ask again naming the rejected words (method class pipeline).

An analyzer that rejects a word is cheap, deterministic evidence that the word is misspelled,
invented or not in the target language; feeding exactly those words back gives the model a
concrete fix to make. Each check is recorded as a tool call, so the run card shows how often
the gate fired. The answer kept is the one with the fewest rejected words (the later one on a
tie), because a retry can make things worse.

Analyzer: method arg ``fst=PATH``, else the run's ``fst_path`` (``--mteval-fst`` or the
corpus's language resources). Retries: method arg ``max_retries``, else the run's
``max_retries`` when it is above 0, else 3 (the spec's cost table assumes 3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_mteval.llm.client import ChatMessage, Completion
from pytest_mteval.methods.chat import BatchContext, ChatMethod, MethodSetupError, language_name
from pytest_mteval.methods.protocol import MethodEntry, MethodResult, RunConfig
from pytest_mteval.metrics.fst import Analyzer, FstError, load_analyzer, words

DEFAULT_RETRIES = 3


class FSTGatedMethod(ChatMethod):
    """One conversation per entry: translation, analyzer check, feedback, up to max_retries."""

    tools_enabled = ("fst_check",)

    def __init__(self) -> None:
        self._analyzers: dict[Path, Analyzer] = {}

    def analyzer(self, config: RunConfig) -> Analyzer:
        given = config.method_args.get("fst") or config.fst_path
        if not given:
            raise MethodSetupError(
                "fst-gated needs a morphological analyzer: pass --mteval-fst=PATH, use a corpus "
                "whose language resources name one, or set method arg fst=PATH"
            )
        path = Path(given)
        if not path.is_absolute() and not path.exists() and config.method_dir:
            path = Path(config.method_dir) / path
        if path not in self._analyzers:
            try:
                self._analyzers[path] = load_analyzer(path)
            except FstError as exc:
                raise MethodSetupError(f"fst-gated: {exc}") from None
        return self._analyzers[path]

    def retries(self, config: RunConfig) -> int:
        given = config.method_args.get("max_retries")
        if given is not None and given != "":
            if not (given.isascii() and given.isdigit()):
                raise MethodSetupError(
                    f"fst-gated: method arg max_retries={given!r} is not 0, 1, ..."
                )
            return int(given)
        return config.max_retries if config.max_retries > 0 else DEFAULT_RETRIES

    def prepare(self, config: RunConfig) -> None:
        self.analyzer(config)
        self.retries(config)

    def max_calls_per_entry(self, config: RunConfig) -> int:
        return 1 + self.retries(config)

    def run_card_fields(self, config: RunConfig) -> dict[str, Any]:
        return {
            "tools_enabled": list(self.tools_enabled),
            "max_retries": self.retries(config),
            "fst_version": f"sha256:{self.analyzer(config).sha256}",
        }

    def system_prompt(self, config: RunConfig) -> str:
        source, target = language_name(config, "source"), language_name(config, "target")
        return (
            f"Translate the user's text from {source} to {target}. Reply with the translation "
            f"only. Every word of your answer is checked by a morphological analyzer of "
            f"{target}, so use only valid {target} word forms in the standard spelling."
        )

    def feedback(self, rejected: list[str], config: RunConfig) -> str:
        target = language_name(config, "target")
        return (
            f"The {target} morphological analyzer does not recognise these words: "
            f"{', '.join(rejected)}. They are misspelled, invented or not {target}. Translate "
            f"the original text again, replacing them with valid {target} words. Reply with the "
            "translation only."
        )

    def rejected_words(self, text: str, config: RunConfig) -> list[str]:
        """Distinct words the analyzer refuses, in order (it accepts a capitalised word whose
        lower-case form it knows)."""
        analyzer = self.analyzer(config)
        return list(dict.fromkeys(w for w in words(text) if not analyzer.accepts(w)))

    async def translate_entry(self, batch: BatchContext, entry: MethodEntry) -> MethodResult:
        config = batch.config
        messages: list[ChatMessage] = self.messages(entry, config)
        completions: list[Completion] = []
        tool_calls: list[dict[str, Any]] = []
        best: tuple[Completion, list[str]] | None = None
        for attempt in range(1, self.retries(config) + 2):
            completion = await batch.complete(messages)
            completions.append(completion)
            if completion.text is None:
                break
            rejected = self.rejected_words(completion.text, config)
            tool_calls.append({"tool": "fst_check", "rejected": rejected, "attempt": attempt})
            if best is None or len(rejected) <= len(best[1]):
                best = (completion, rejected)
            if not rejected or attempt > self.retries(config):
                break
            messages = [
                *messages,
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": self.feedback(rejected, config)},
            ]
        extra: dict[str, Any] = {"fst_rejected": best[1] if best else None}
        if best is not None and completions[-1].text is None:
            extra["retry_error"] = completions[-1].error
        chosen = best[0] if best else None
        return self.result(batch, entry, completions, chosen, tool_calls, extra)
