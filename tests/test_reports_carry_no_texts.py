"""Attack: a plugin that keeps or serialises pytest's reports (as pytest-reportlog writes them
to a file) reads a scores-only run's sources, references and predictions off the entry items'
reports. The record is the run's: once the plugin has taken it, no report carries it."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from conftest import CORPORA

pytest_plugins = ["pytester"]

CORPUS = CORPORA / "eng-sme-tatoeba-dev.json"


class ReportLogger:
    """Serialises every report as pytest-reportlog does, after every other plugin."""

    def __init__(self) -> None:
        self.config: pytest.Config | None = None
        self.lines: list[str] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        assert self.config is not None
        data: Any = self.config.hook.pytest_report_to_serializable(
            config=self.config, report=report
        )
        self.lines.append(json.dumps(data, ensure_ascii=False, default=str))


def _texts() -> list[str]:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    return [text for e in entries for text in (e["source"], e["reference"]) if len(text) > 12]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_no_report_carries_a_scores_only_runs_texts(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    corpus = pytester.path / "sme.json"
    shutil.copy(CORPUS, corpus)
    logger = ReportLogger()
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        "--mteval-method=identity",
        "--mteval-scores-only",
        "-p",
        "no:randomly",
        *workers,
        plugins=[logger],
    )
    assert result.ret == pytest.ExitCode.OK
    log = "\n".join(logger.lines)
    assert len(logger.lines) >= 3 * 58  # every entry's setup, call and teardown reports
    assert [text for text in _texts() if text in log] == []
    card = json.loads(next((pytester.path / ".mteval" / "runs").glob("*.json")).read_text())
    assert len(card["results"]) == 58  # the run itself still got every record
