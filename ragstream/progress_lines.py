"""Model calls' progress as lines on a terminal stream (the CLI's stderr).

Retries and failures are said at once; a call that is still waiting for its reply is said every
few seconds (role, attempt, how long), so nobody stares at a silent terminal while a server
stalls. The answer's own text goes to stdout meanwhile, untouched.
"""
from __future__ import annotations

import threading
import time
from typing import TextIO

from ragstream.llm.turn import Progress

EVERY_SECONDS = 5.0


class ModelProgress:
    """A progress sink (`Progress` -> lines on `stream`); a context manager that stops its timer."""

    def __init__(self, stream: TextIO, every: float | None = None):
        self.stream = stream
        self.every = every or EVERY_SECONDS
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __call__(self, progress: Progress) -> None:
        with self._lock:
            self._cancel()
            if progress.event in ("retry", "failed") or (progress.event == "start" and progress.attempt > 1):
                self._say(progress.line())
            if progress.event == "start":
                self._schedule(progress, time.monotonic())

    def _schedule(self, progress: Progress, since: float) -> None:
        timer = threading.Timer(self.every, self._still_waiting, (progress, since))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _still_waiting(self, progress: Progress, since: float) -> None:
        with self._lock:
            if self._timer is None or threading.current_thread() is not self._timer:
                return  # a newer event came first
            waited = time.monotonic() - since
            self._say(f"{progress.role} model {progress.model}: attempt {progress.attempt} of {progress.attempts}, "
                      f"still waiting for a reply after {waited:.0f} s ({progress.detail})")
            self._schedule(progress, since)

    def _say(self, line: str) -> None:
        print(f"model: {line}", file=self.stream, flush=True)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def __enter__(self) -> "ModelProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._cancel()
