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
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from ragstream import errors
from ragstream.index.background import lower_priority
from ragstream.index.build import BuildReport, Progress, published_in
from ragstream.index.store import pid_alive

FOLLOW_POLL_SECONDS = 0.1
EVENTS_FILE_LIMIT = 1 << 20  # bytes: a watching child's events go on in a new file past this
ROTATED = "rotated"  # the event that ends a file: the events go on in the file it names (`rotate_events`)


@dataclass
class BuildSummary:
    """What the workbench says of a finished build."""

    files: int
    chunks: int
    embedded_new: int
    seconds: dict[str, float] = field(default_factory=dict)
    keyword_ready_seconds: float = 0.0
    unchanged: bool = False  # nothing had changed: nothing was rebuilt
    askable_seconds: float | None = None  # to the interim generation, when one was published first

    @property
    def published(self) -> str:
        return published_in(self.askable_seconds, self.keyword_ready_seconds)

    @classmethod
    def of(cls, report: BuildReport) -> "BuildSummary":
        return cls(report.files, report.chunks, report.embedded_new, dict(report.seconds),
                   report.keyword_ready_seconds, report.unchanged, report.askable_seconds)


class EventWriter:
    """A `Progress` that writes each event as a line on `stream`. Once the index is first
    published it can be asked, and the rest of the build (the fill) yields the CPU to the
    questions of whoever watches it. With `rotate` (the path of the file `stream` writes to, a
    watching child's, which would otherwise grow for as long as the watch runs), the events go on
    in a new file once it holds more than `limit` bytes (`rotate_events`)."""

    def __init__(self, stream: TextIO, rotate: Path | None = None, limit: int = EVENTS_FILE_LIMIT):
        self.stream = stream
        self._published = False
        self._file = rotate
        self._limit = limit

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
        if self._file is not None and self.stream.tell() > self._limit:
            self._file = rotate_events(self.stream, self._file)


def rotate_events(stream: TextIO, path: Path) -> Path:
    """Go on writing the events of `stream`, which writes to the file at `path`, in a new file
    beside it (returned), losing no line: the new file is made, the stream's descriptor (and
    stderr's, when it is the same file: a child's warnings and tracebacks go there too) moved
    onto it, and only then is a `ROTATED` event naming it written as the old file's last line.
    The follower reads on in the new file and deletes the old one (`follow_lines`), so the files
    on disk are those it has not read yet."""
    stream.flush()
    stem, _, number = path.name.partition("~")
    new_path = path.with_name(f"{stem}~{int(number or 0) + 1}")
    old = os.dup(stream.fileno())
    try:
        errors_too = _same_file(sys.stderr, old)
        if errors_too:
            sys.stderr.flush()
        new = os.open(new_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.dup2(new, stream.fileno())
        if errors_too:
            os.dup2(new, sys.stderr.fileno())
        os.close(new)
        unfinished = _ends_unfinished(path)  # a child's stderr (the same file) may have left a partial line
        os.write(old, (("\n" if unfinished else "") + json.dumps({"event": ROTATED, "next": new_path.name})
                       + "\n").encode())
    finally:
        os.close(old)
    stream.seek(0, os.SEEK_END)  # where the new file's writes begin, for the next `tell`
    return new_path


def _ends_unfinished(path: Path) -> bool:
    """Whether the file's last line has no newline yet (its writer's descriptor may not read)."""
    with open(path, "rb") as written:
        if written.seek(0, os.SEEK_END) == 0:
            return False
        written.seek(-1, os.SEEK_END)
        return written.read(1) != b"\n"


def _same_file(stream: TextIO, descriptor: int) -> bool:
    """Whether `stream` writes to the open file `descriptor` is (not a pipe or terminal of its own)."""
    try:
        mine, theirs = os.fstat(stream.fileno()), os.fstat(descriptor)
    except (OSError, ValueError):
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


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
    """Hand each whole line a child writes to `events` to `take` until it exits; its exit code.
    A `ROTATED` event is not handed on: the child's lines go on in the file it names
    (`rotate_events`), read next, and the file read to its end is deleted."""
    pending = ""
    ended: int | None = None
    stream = open(events, encoding="utf-8")
    try:
        while True:
            chunk = stream.readline()
            if chunk:
                pending += chunk
                if (following := _rotated_to(pending)) is not None:
                    stream.close()
                    Path(stream.name).unlink()
                    stream = open(events.with_name(following), encoding="utf-8")
                    pending = ""
                elif pending.endswith("\n"):
                    take(pending)
                    pending = ""
                continue
            if ended is not None:  # the child is gone and all it wrote was read
                if pending:
                    take(pending)
                return ended
            ended = exit_code()
            if ended is None:
                time.sleep(FOLLOW_POLL_SECONDS)
    finally:
        stream.close()


def _rotated_to(line: str) -> str | None:
    """The file a `ROTATED` event names (None: `line` is another line)."""
    if not (line.startswith('{"event": "rotated"') and line.endswith("\n")):
        return None
    event = json.loads(line)
    return event["next"] if event.get("event") == ROTATED else None


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
