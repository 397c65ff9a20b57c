"""A build's progress as JSON lines, so that another process can follow it.

The workbench builds in a child process (`ragstream index --events`): the build then has a
core and an interpreter of its own, and parses in worker processes, instead of sharing the
page's. The child writes one event a line -- a phase started, advanced or finished, a
generation published, the build's summary, that there was nothing to build, or its error --
and the workbench replays them
into the `Progress` it draws (`replay`). A watching child (`ragstream index --watch --events`)
also says when its watcher is up and, before each refresh, which files it saw change; its
builds' events follow as any build's do.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from ragstream import errors
from ragstream.index.background import lower_priority
from ragstream.index.build import BuildReport, Progress
from ragstream.index.store import pid_alive

FOLLOW_POLL_SECONDS = 0.1


@dataclass
class BuildSummary:
    """What the workbench says of a finished build."""

    files: int
    chunks: int
    embedded_new: int
    seconds: dict[str, float] = field(default_factory=dict)
    keyword_ready_seconds: float = 0.0
    unchanged: bool = False  # nothing had changed: nothing was rebuilt

    @classmethod
    def of(cls, report: BuildReport) -> "BuildSummary":
        return cls(report.files, report.chunks, report.embedded_new, dict(report.seconds),
                   report.keyword_ready_seconds, report.unchanged)


class EventWriter:
    """A `Progress` that writes each event as a line on `stream`. Once the index is first
    published it can be asked, and the rest of the build (the fill) yields the CPU to the
    questions of whoever watches it."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self._published = False

    def start(self, phase: str, total: int | None) -> None:
        self._write({"event": "start", "phase": phase, "total": total})

    def advance(self, phase: str, amount: int = 1) -> None:
        self._write({"event": "advance", "phase": phase, "amount": amount})

    def finish(self, phase: str) -> None:
        self._write({"event": "finish", "phase": phase})

    def published(self, vectors: dict) -> None:
        self._write({"event": "published", "vectors": vectors})
        if not self._published:
            self._published = True
            lower_priority()

    def summary(self, report: BuildReport) -> None:
        self._write({"event": "summary", **asdict(BuildSummary.of(report))})

    def up_to_date(self) -> None:
        self._write({"event": "up_to_date"})

    def watching(self) -> None:
        self._write({"event": "watching"})

    def changed(self, paths: list[str]) -> None:
        self._write({"event": "changed", "paths": paths})

    def error(self, exc: errors.RagstreamError) -> None:
        self._write({"event": "error", "type": type(exc).__name__, "message": exc.message,
                     "where": exc.where, "hint": exc.hint})

    def _write(self, event: dict) -> None:
        self.stream.write(json.dumps(event) + "\n")
        self.stream.flush()


class BuildFollower(Progress, Protocol):
    """What `replay` reports beyond a `Progress`: the summary or the error at the end."""

    def summarised(self, summary: BuildSummary) -> None: ...

    def failed(self, error: errors.RagstreamError) -> None: ...

    def unchanged(self) -> None:
        """The index was up to date: nothing was built."""

    def watching(self) -> None:
        """A watching child's watcher is up: every edit from now on is seen."""

    def changed(self, paths: list[str]) -> None:
        """A watching child saw these repository-relative paths change; its refresh starts."""


def replay(line: str, follower: BuildFollower) -> bool:
    """Apply one line of a child build's output to `follower`; False for a line that is not an
    event (a warning or a traceback the child printed), which the caller keeps as text."""
    try:
        event = json.loads(line)
    except ValueError:
        return False
    if not isinstance(event, dict) or "event" not in event:
        return False
    kind = event.pop("event")
    if kind == "start":
        follower.start(event["phase"], event["total"])
    elif kind == "advance":
        follower.advance(event["phase"], event["amount"])
    elif kind == "finish":
        follower.finish(event["phase"])
    elif kind == "published":
        follower.published(event["vectors"])
    elif kind == "summary":
        follower.summarised(BuildSummary(**event))
    elif kind == "up_to_date":
        follower.unchanged()
    elif kind == "watching":
        follower.watching()
    elif kind == "changed":
        follower.changed(event["paths"])
    elif kind == "error":
        cls = getattr(errors, event["type"], None)
        cls = cls if isinstance(cls, type) and issubclass(cls, errors.RagstreamError) else errors.IndexingError
        follower.failed(cls(event["message"], where=event["where"], hint=event["hint"]))
    else:
        return False
    return True


def follow_lines(events: Path, exit_code: Callable[[], int | None], take: Callable[[str], None]) -> int:
    """Hand each whole line a child writes to `events` to `take` until it exits; its exit code."""
    pending = ""
    with open(events, encoding="utf-8") as stream:
        while True:
            chunk = stream.readline()
            if chunk:
                pending += chunk
                if pending.endswith("\n"):
                    take(pending)
                    pending = ""
                continue
            code = exit_code()
            if code is not None:
                for line in (pending + stream.read()).splitlines():
                    take(line)
                return code
            time.sleep(FOLLOW_POLL_SECONDS)


def child_exit_code(pid: int) -> Callable[[], int | None]:
    """`exit_code` for a child process this process started before an exec (the launcher's
    build): None while it runs, then its exit code."""
    def exit_code() -> int | None:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours, or reaped already: alive or not is all there is
            return None if pid_alive(pid) else 0
        return os.waitstatus_to_exitcode(status) if done else None

    return exit_code
