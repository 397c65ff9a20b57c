"""What the workbench lists and starts: the indexes under the data folder (with how stale each
is) and those published to a shared Milvus, the pipelines (with what they extend), index
builds running in the background, and the watching builder that follows the index it serves.

The controller calls these; the workbench draws what they return.
"""
from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragstream.config import DEFAULT_INDEX_NAME, PROJECT_ROOT, Settings
from ragstream.errors import IndexingError, RagstreamError
from ragstream.index import store
from ragstream.index.background import start_followed_build
from ragstream.index.build import diff_files, locate, repository_info
from ragstream.index.build_events import BuildSummary, follow_lines, replay
from ragstream.index.fill import describe, stage_of
from ragstream.index.sql_coverage import SqlCoverage
from ragstream.index.graph_mark import graph_marks, graph_note
from ragstream.index.walk import walk_repository
from ragstream.pipeline.loader import PIPELINES_DIR, Pipeline

# Pipeline settings worth showing beside a pipeline's name.
KEY_SETTINGS = ("top_k", "max_depth", "max_nodes", "max_context_tokens", "prioritization_mode", "layout")


@dataclass(frozen=True)
class IndexSummary:
    repository: str
    index: str
    branch: str = ""
    commit: str | None = None
    updated_at: str = ""
    age_seconds: float = 0.0
    files: int = 0
    chunks: int = 0
    nodes: int = 0
    edges: int = 0
    source_root: str = ""
    stale: int | None = None  # files added, changed or deleted since the build; None: not known
    stale_note: str = ""  # why `stale` is not known
    problem: str | None = None  # why the index cannot be used (then the counts are zero)
    vectors: dict = field(default_factory=dict)  # the semantic fill's stage and coverage (`fill.coverage`)
    builder: str | None = None  # who builds it now ("fill pid 12"), None when nobody does
    shared: bool = False  # published to the shared Milvus (milvus.uri), not a folder on this machine
    sql_coverage: SqlCoverage | None = None  # how much of the database the C# reaches, as the build counted it
    marks: dict = field(default_factory=dict)  # the manifest's mark of an interim graph, if any (`graph_mark`)

    @property
    def label(self) -> str:
        """How a picker names it: a shared index says so; the bundled default is named after the
        project, not after the folder it was checked out in ("main / self")."""
        if self.bundled:
            return "ragstream's own source (self)"
        return f"{self.repository} / {self.index}" + (" (shared)" if self.shared else "")

    @property
    def bundled(self) -> bool:
        """Whether it is the bundled default index: ragstream's own source, `self`."""
        return (not self.shared and self.index == DEFAULT_INDEX_NAME and bool(self.source_root)
                and Path(self.source_root).resolve() == PROJECT_ROOT)

    @property
    def source(self) -> str:
        """Where a question against it is served from (`Scope.index_source`)."""
        return "shared" if self.shared else "local"

    @property
    def stage(self) -> str:
        """Stage, coverage and ETA in one line ("keyword-ready: semantic over ...")."""
        return describe(self.vectors, self.builder) if self.vectors else ""

    def stage_told(self, filtered: bool) -> str:
        """`stage`, or under retrieval filters (`filtered`) the stage's name alone: its coverage
        counts the whole index, which would say how much the filters hide."""
        return self.vectors.get("stage", "") if filtered else self.stage

    def coverage_told(self, filtered: bool) -> list[str]:
        """The SQL-coverage lines (`index.sql_coverage`); none under retrieval filters: they count
        the whole index."""
        return [] if filtered or self.sql_coverage is None else self.sql_coverage.lines()

    def graph_note(self, filtered: bool) -> str | None:
        """Set while its graph is the interim one an edit was published with (`graph_mark`); under
        retrieval filters (`filtered`) no changed file named or counted."""
        return graph_note(self.marks, filtered)


def list_indexes(settings: Settings) -> list[IndexSummary]:
    """Every index folder under the data folder, usable ones with their counts and staleness."""
    root = Path(settings.index.data_dir).expanduser().resolve()
    found = []
    for folder in sorted((root / "indexes").glob("*/*/")):
        location = store.IndexLocation(root, folder.parent.name, folder.name)
        if store.current_generation(location) is None:
            continue  # a build that never finished (or one running now) is not an index yet
        found.append(_summary(location, settings))
    return found


def _summary(location: store.IndexLocation, settings: Settings) -> IndexSummary:
    try:
        manifest = store.load_index(location).manifest
    except RagstreamError as exc:
        return IndexSummary(location.repository, location.active_index, problem=str(exc))
    counts = manifest["counts"]
    updated = datetime.strptime(manifest["updated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    source = Path(manifest.get("source_root") or "")
    stale, note = None, "source folder not found"
    if manifest.get("source_root") and source.is_dir():
        try:
            stale = diff_files(manifest["files"], walk_repository(source, settings.index, with_text=False).files).stale
        except (RagstreamError, OSError) as exc:  # an unreadable source must not hide the index
            note = f"cannot walk {source}: {exc}"
    return IndexSummary(location.repository, location.active_index, manifest["branch"], manifest.get("commit"),
                        manifest["updated_at"], (datetime.now(timezone.utc) - updated).total_seconds(),
                        counts["files"], counts["chunks"], counts["nodes"], counts["edges"],
                        str(source), stale, "" if stale is not None else note, vectors=stage_of(manifest),
                        builder=store.lock_holder(location), sql_coverage=SqlCoverage.from_dict(counts.get("sql_coverage")),
                        marks=graph_marks(manifest))


def list_shared_indexes(client, uri: str) -> list[IndexSummary]:
    """Every index published to the Milvus at `uri` (live generations, from their manifests).
    A Milvus that cannot be read is one entry with the problem, so the local ones still show."""
    from ragstream.retrieval import milvus_store

    try:
        manifests = milvus_store.published_manifests(client)
    except Exception as exc:  # noqa: BLE001 - pymilvus raises its own and grpc errors
        return [IndexSummary("milvus", uri, shared=True, problem=f"cannot list shared indexes: {exc}")]
    return [_manifest_summary(m, uri) for m in manifests]


def _manifest_summary(manifest: dict, uri: str) -> IndexSummary:
    counts = manifest["counts"]
    updated = datetime.strptime(manifest["updated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return IndexSummary(manifest["repository"], manifest["active_index"], manifest["branch"], manifest.get("commit"),
                        manifest["updated_at"], (datetime.now(timezone.utc) - updated).total_seconds(),
                        counts["files"], counts["chunks"], counts["nodes"], counts["edges"], uri,
                        stale_note="shared: published, not walked here", vectors=stage_of(manifest), shared=True,
                        sql_coverage=SqlCoverage.from_dict(counts.get("sql_coverage")), marks=graph_marks(manifest))


def default_index() -> tuple[Path, str, str]:
    """(source folder, repository, index name) of the bundled default index."""
    return PROJECT_ROOT, repository_info(PROJECT_ROOT).repository, DEFAULT_INDEX_NAME


def build_wanted(settings: Settings, path: Path, name: str | None) -> bool | None:
    """Whether the index `name` of the repository at `path` is to be built: None when it is up
    to date and complete or being filled, else whether from scratch (the one there cannot be
    used). A stopped fill is resumed by the build."""
    location = locate(repository_info(path), settings, name)
    if store.current_generation(location) is None:
        return False
    current = _summary(location, settings)
    if (current.problem is None and current.stale == 0 and (not current.marks or current.builder)
            and (current.vectors.get("stage") == "complete" or current.builder)):
        return None
    return current.problem is not None


@dataclass(frozen=True)
class PipelineSummary:
    name: str
    extends: tuple[str, ...]  # the files it inherits from, root first (itself excluded)
    settings: dict[str, Any]  # its key settings
    problem: str | None = None  # why it does not load


def pipeline_names() -> list[str]:
    return sorted(p.stem for p in PIPELINES_DIR.glob("*.yaml"))


def summarise_pipeline(name: str, pipeline: Pipeline | None, problem: str | None = None) -> PipelineSummary:
    if pipeline is None:
        return PipelineSummary(name, (), {}, problem)
    return PipelineSummary(name, tuple(Path(f).stem for f in pipeline.files[:-1]),
                           {k: pipeline.settings[k] for k in KEY_SETTINGS if k in pipeline.settings})


@dataclass
class PhaseProgress:
    total: int | None  # None: not known in advance (the walk)
    done: int = 0
    finished: bool = False


def _covers_every_chunk(vectors: dict) -> bool:
    """Every chunk has a vector (its head window at least): the stage from which questions are
    searched by meaning over the whole index."""
    return vectors.get("stage") in ("heads", "complete")


@dataclass
class BuildJob:
    """An index build in a child process (`ragstream index --events`), followed on a thread:
    the build gets a core and an interpreter of its own (and parses in worker processes) while
    the workbench serves its pages. It is the build's `Progress` as replayed from the child's
    events: the workbench polls `phases` and `vectors`, and `report` or `error` once `running`
    is false."""

    path: Path
    name: str | None
    settings: Settings
    rebuild: bool = False
    phases: dict[str, PhaseProgress] = field(default_factory=dict)
    vectors: dict = field(default_factory=dict)  # stage and coverage of the last generation it published
    report: BuildSummary | None = None
    error: BaseException | None = None
    output: list[str] = field(default_factory=list)  # what the child printed besides its events
    on_askable: Callable[["BuildJob"], None] | None = None  # called once, when the index is first published
    on_semantic: Callable[["BuildJob"], None] | None = None  # called once, when every chunk first has a vector
    up_to_date: bool = False  # the build found nothing to do (`ragstream index --if-stale`)
    started: float = field(default_factory=time.time)
    finished: float | None = None
    _thread: threading.Thread | None = None

    def begin(self) -> "BuildJob":
        """Start the child build and follow it."""
        process, events = start_followed_build(self.settings, self.path, self.name, self.rebuild)
        return self.follow(events, process.poll)

    def follow(self, events: Path, exit_code: Callable[[], int | None]) -> "BuildJob":
        """Follow a child build already started (the launcher's, for the default index) that
        writes its events to `events`; `exit_code` is None while it runs."""
        self._thread = threading.Thread(target=self._follow, args=(events, exit_code),
                                        name=f"ragstream-build-{self.name}", daemon=True)
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def snapshot(self) -> list[tuple[str, PhaseProgress]]:
        """The phases so far, in order (copied: the follower thread keeps writing)."""
        return [(phase, PhaseProgress(p.total, p.done, p.finished)) for phase, p in list(self.phases.items())]

    # --- the build's events (on the follower thread) ------------------------------------

    def start(self, phase: str, total: int | None) -> None:
        self.phases[phase] = PhaseProgress(total)

    def advance(self, phase: str, amount: int = 1) -> None:
        self.phases[phase].done += amount

    def finish(self, phase: str) -> None:
        self.phases[phase].finished = True

    def published(self, vectors: dict) -> None:
        before, self.vectors = self.vectors, vectors
        if not before and self.on_askable is not None:
            self.on_askable(self)
        if _covers_every_chunk(vectors) and not _covers_every_chunk(before) and self.on_semantic is not None:
            self.on_semantic(self)

    def summarised(self, summary: BuildSummary) -> None:
        self.report = summary

    def failed(self, error: RagstreamError) -> None:
        self.error = error

    def unchanged(self) -> None:
        self.up_to_date = True

    @property
    def stage(self) -> str:
        """"" before the index is first published, then its stage ("keyword", "heads", "complete")."""
        return self.vectors.get("stage", "")

    def watching(self) -> None:
        """Only a watching child says this (`WatchJob`)."""

    def changed(self, paths: list[str]) -> None:
        """Only a watching child says this (`WatchJob`)."""

    def _ended_early(self, code: int) -> str | None:
        """Why the child's end is an error, or None when it ended as it should."""
        if self.report is None and self.error is None and not self.up_to_date:
            return f"the build process ended with exit code {code} before it finished"
        return None

    def _follow(self, events: Path, exit_code: Callable[[], int | None]) -> None:
        try:
            code = follow_lines(events, exit_code, self._line)
            if (early := self._ended_early(code)) is not None:
                self.error = IndexingError(early, where=str(self.path), hint="\n".join(self.output[-12:]) or None)
        except BaseException as exc:  # noqa: BLE001 - shown in the workbench, which has no console
            self.error = exc
        finally:
            shutil.rmtree(events.parent, ignore_errors=True)  # the events and the settings written for the child
            self.finished = time.time()

    def _line(self, line: str) -> None:
        if line.strip() and not replay(line, self):
            self.output.append(line.rstrip())


STOP_WAIT_SECONDS = 10.0  # how long a watching child is given to end on SIGTERM before it is killed


@dataclass
class WatchJob(BuildJob):
    """The watching builder of the index the workbench serves: one child process
    (`ragstream index --watch --events`) that builds once, then re-indexes each burst of file
    changes incrementally, keeping its warm state (`index/warm_state.py`) between refreshes. Its
    events are replayed as a `BuildJob`'s; `report` and `error` are the last refresh's. It runs
    until `stop` (or until the workbench ends: the child stops with its parent)."""

    watcher_up: bool = False  # every edit from now on is seen
    refreshing: bool = True  # a build runs now (the first one from the start)
    refreshes: int = 0  # builds ended, the first included
    updates: int = 0  # builds that changed the index, or failed: what a page redraws for
    seen: list[str] = field(default_factory=list)  # the paths of the last burst of changes
    bursts: int = 0  # bursts of changes seen
    refreshed_at: float | None = None  # when the last build ended
    _process: subprocess.Popen | None = None
    _stopped: bool = False

    def begin(self) -> "WatchJob":
        self._process, events = start_followed_build(self.settings, self.path, self.name, False, watch=True)
        self.follow(events, self._process.poll)
        return self

    def stop(self) -> None:
        """End the child (SIGTERM, then SIGKILL after STOP_WAIT_SECONDS) and its follower. The
        index keeps its last published generation; a refresh cut short leaves no trace."""
        self._stopped = True
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(STOP_WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self.wait()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def watching(self) -> None:
        self.watcher_up = True

    def changed(self, paths: list[str]) -> None:
        self.seen, self.bursts, self.refreshing, self.error = list(paths), self.bursts + 1, True, None
        self.phases = {}

    def summarised(self, summary: BuildSummary) -> None:
        self.report, self.refreshing, self.refreshed_at = summary, False, time.time()
        self.refreshes += 1
        self.updates += not summary.unchanged

    def failed(self, error: RagstreamError) -> None:
        self.error, self.refreshing, self.refreshed_at = error, False, time.time()
        self.refreshes += 1
        self.updates += 1

    def _ended_early(self, code: int) -> str | None:
        return None if self._stopped else f"the watching process ended with exit code {code}"


def watch_target(index: IndexSummary | None) -> tuple[Path, str] | None:
    """(source folder, index name) of an index a workbench can follow: a local one whose source
    folder is on this machine; None for any other (shared, unusable, source gone)."""
    if index is None or index.shared or index.problem or not index.source_root:
        return None
    source = Path(index.source_root)
    return (source.resolve(), index.index) if source.is_dir() else None
