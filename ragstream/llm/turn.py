"""One question's model calls: a shared deadline, who to tell while waiting, and an endpoint
that already failed.

Every stage may call a model (router, shaper, gate, condenser, answer ...). Without a bound per
question, a dead server cost each of them its full retries; with one, the calls share
`llm.turn_seconds`, and once the endpoint has failed (given up after retries, stalled past the
deadline, or sent a malformed reply) the later calls of the same question fall back at once,
saying why.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

# What a call is doing: start (an attempt is sent), streaming (its first piece came), retry
# (it failed and will be tried again after `wait`), failed (no more tries: the stage falls back),
# done.
EVENTS = ("start", "streaming", "retry", "failed", "done")


@dataclass(frozen=True)
class Progress:
    """What a model call is doing, for a person waiting on it."""

    event: str
    role: str
    model: str
    attempt: int  # 1-based
    attempts: int
    seconds: float  # since the call began (all its attempts)
    detail: str = ""  # the failure, the wait, the deadlines
    wait: float = 0.0  # retry: seconds until the next attempt

    def line(self) -> str:
        """One line a person can read: which role, which attempt, how long, what next."""
        head = f"{self.role} model {self.model}: attempt {self.attempt} of {self.attempts}, {self.seconds:.1f} s"
        return f"{head}: {self.event}" + (f" ({self.detail})" if self.detail else "")


ProgressSink = Callable[[Progress], None]


@dataclass
class Turn:
    """The deadline and the progress sink shared by every model call of one question."""

    deadline: float  # time.monotonic() after which no call starts
    seconds: float  # the budget it was made with (for messages)
    on_progress: ProgressSink | None = None
    down: str | None = None  # why the endpoint failed in this turn: later calls fall back at once
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def starting_now(cls, seconds: float, on_progress: ProgressSink | None = None) -> "Turn":
        return cls(time.monotonic() + seconds, seconds, on_progress)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def tell(self, progress: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(progress)
