"""SIGTERM ends a run the way Ctrl-C does, because CI systems cancel jobs with it.

GitHub Actions and GitLab send SIGTERM when a job is cancelled or times out, then SIGKILL a
few seconds later (docs/gating.md#when-ci-cancels-the-job). Python's default for SIGTERM is to
die at once, losing the card. Here the first SIGTERM raises ``KeyboardInterrupt`` in the main
thread, so pytest takes its interrupted path: no new batch, the entries not run recorded,
the card and summary written, exit status 2. A SIGTERM or Ctrl-C arriving while the run
already stops is ignored, so that it cannot cut the card's writing short.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class TerminationAsInterrupt:
    """The SIGTERM handler of one session, installed at start and put back at its end."""

    def __init__(self) -> None:
        self.stopping = False
        self.installed = False

    def install(self) -> None:
        """Take SIGTERM, unless another handler (a user's conftest) already did."""
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers belong to the main thread (an in-process API call)
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return
        signal.signal(signal.SIGTERM, self._on_sigterm)
        self.installed = True

    def restore(self) -> None:
        """Give SIGTERM back its default once the session has ended."""
        if self.installed and signal.getsignal(signal.SIGTERM) == self._on_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        self.installed = False

    def interrupted(self) -> None:
        """The run is stopping (Ctrl-C or SIGTERM): a later SIGTERM changes nothing."""
        self.stopping = True

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping:
            return
        self.stopping = True
        raise KeyboardInterrupt("SIGTERM: the run stops as after Ctrl-C")
