"""`ragstream index PATH`: walk, parse, link, chunk and write one index, incrementally; publish
it keyword-ready, then fill in its vectors (`index/fill.py`).

Per-file parse results are kept in the index and in the repository's parse cache under a key
of (content hash, language, module name, SQL dialect), and vectors in the data folder's
embedding cache under the hash of their text. The parse cache is shared by every index of the
repository, the embedding cache by every index of every repository, so a re-index -- or the
first index of another branch, commit or fork -- re-parses only files it has never seen,
re-embeds only texts it has never seen, and re-links the whole graph so edges into changed
files follow (a process that built before takes its graph, lines moved, when an edit only moved
lines of Python files: `graph_reuse`). A re-index that finds the same files (by hash), the same commit and the
same build key (`build_key`: settings, parser and redaction versions) returns after a walk
that reads no text and publishes nothing.

A build without a previous index (the first, or one that starts over) publishes twice before its
vectors: first its keyword index over the unlinked graph (`graph_build.unlinked_graph`: every
definition, nothing resolved across files; `graph_mark`'s "linking" mark; no change history,
whose `git log` it does not wait for), as soon as the chunks and BM25 are written, then the linked
generation -- the Python call solve, C#, SQL and the other
linkers are most of a cold build's graph step, which BM25 never needed: a chunk's keyword text
is its code and its header's own rows, never the relation rows linking adds (`keyword_text`), so
the linked generation links the first one's BM25 files (it writes them anew if the texts differ).
A build that updates an index publishes the linked graph only, unless the edit's interim graph
comes first (`graph_interim`): a reader never trades a linked graph for an unlinked one.
`search` and `ask` answer from whichever generation is live, and while it is the unlinked one
every answer, tool result and index list says the graph is linking (`graph_mark.graph_note`).
`ask` does not wait for the link, as it does not for an edit's interim graph: the unlinked
generation is live for seconds, an answer made from it says its graph is not linked, and the same
question a moment later gets the linked graph; a wait would hold every question asked during a
cold build behind its slowest step (the Python call solve) and, after a killed build (whose mark
stays until the next build links it: `_unchanged`), behind nothing that will ever come.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

import networkx as nx
import numpy as np
import orjson

from ragstream.config import Settings
from ragstream.errors import IndexLoadError, IndexingError
from ragstream.gc_pause import gc_paused
from ragstream.index import store
from ragstream.index.acl import AclPolicy, acl_policy
from ragstream.index.blob_cache import BlobCache
from ragstream.index.change_history import ChangeLog
from ragstream.index.chunk_counts import RememberedCounts
from ragstream.index.sql_coverage import SqlCoverage, sql_coverage
from ragstream.index.chunk_reuse import BuiltChunks, reusable_chunks
from ragstream.index.chunks import build_chunks, keyword_text
from ragstream.index.compact_forms import write_compact_forms
from ragstream.index.embeddings import Embedder, EmbeddingCache
from ragstream.index.generation_memo import GenerationMemo
from ragstream.index.fill import TextPlan, coverage, fill_vectors, stage_of, write_vectors
from ragstream.index.graph_build import ResolutionStats, build_graph, unlinked_graph
from ragstream.index.graph_interim import interim_graph
from ragstream.index.graph_mark import GRAPH_UPDATE, graph_unlinked, graph_update
from ragstream.index.graph_reuse import BuiltGraph, moved_graph
from ragstream.index.graph_text import GraphText, graph_text, patched_text
from ragstream.index.model import Chunk, ParsedFile
from ragstream.index.parse import parse_many
from ragstream.index.python.parser import module_names
from ragstream.index.search_artifacts import write_bm25
from ragstream.redact import REDACTION_VERSION
from ragstream.index.source_texts import remember_texts, text_key, walk_with_texts
from ragstream.index.walk import (SkippedFile, SourceFile, WalkResult, check_repository_path, decoded_by_fallback,
                                  too_large, walk_repository, walk_told)
from ragstream.index.warm_state import (WarmState, chunks_jsonl, has_warm_state, keep_walk, parsed_json,
                                        take_walk, warm_state)
from ragstream.index.embedding_windows import LinePieces
from ragstream.token_count import token_counter

class Progress(Protocol):
    """What a build reports while it runs (the CLI draws bars, the UI a progress widget)."""

    def start(self, phase: str, total: int | None) -> None: ...

    def advance(self, phase: str, amount: int = 1) -> None: ...

    def finish(self, phase: str) -> None: ...

    def published(self, vectors: dict) -> None:
        """A generation went live; `vectors` is its stage and coverage (`fill.coverage`)."""


class Silent:
    """A Progress that reports nothing (a build nobody watches)."""

    def start(self, phase: str, total: int | None) -> None:
        pass

    def advance(self, phase: str, amount: int = 1) -> None:
        pass

    def finish(self, phase: str) -> None:
        pass

    def published(self, vectors: dict) -> None:
        pass


@dataclass(frozen=True)
class RepositoryInfo:
    root: Path
    repository: str
    branch: str
    commit: str | None


@dataclass
class FileChanges:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def stale(self) -> int:
        return len(self.added) + len(self.changed) + len(self.deleted)


@dataclass
class BuildReport:
    info: RepositoryInfo
    location: store.IndexLocation
    incremental: bool
    changes: FileChanges
    files: int = 0
    chunks: int = 0
    split_chunks: int = 0
    nodes_by_kind: Counter = field(default_factory=Counter)
    edges_by_type: Counter = field(default_factory=Counter)
    resolution: ResolutionStats = field(default_factory=ResolutionStats)
    skipped: list[SkippedFile] = field(default_factory=list)
    decoded_by_fallback: list[str] = field(default_factory=list)  # `walk.decoded_by_fallback` of the files
    parse_failures: dict[str, str] = field(default_factory=dict)  # path -> error
    parse_warnings: list[str] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)  # path -> secrets redacted
    reparsed: int = 0
    python_solve_reused: bool = False  # the Python call solve came from the previous build (no flow fact changed)
    graph_moved: bool = False  # the graph was the previous build's, lines moved (`graph_reuse`)
    chunks_reused: int = 0  # chunks this process's previous build made that were taken as they were (`chunk_reuse`)
    embedded_new: int = 0
    embedded_cached: int = 0
    embedding_backends: dict[str, int] = field(default_factory=dict)  # backend -> texts embedded
    past_changes: int = 0  # commits of the change history that touched an indexed definition
    seconds: dict[str, float] = field(default_factory=dict)
    previous_index_problem: str | None = None  # why an existing index could not be reused
    vectors: dict = field(default_factory=dict)  # stage and coverage of the last generation published
    fill_stopped: bool = False  # a re-index took the fill over before it ended
    unchanged: bool = False  # nothing changed since the live index was built: nothing was built or published
    sql_coverage: SqlCoverage | None = None  # how much of the database the C# reaches (`sql_coverage`)
    # files whose edit was published first with the interim graph (`graph_interim`), then linked
    graph_deferred: list[str] = field(default_factory=list)
    # from the start to the publication of a generation before the linked one, if any: an edit's with
    # the interim graph, or a build's without a previous index with the unlinked graph (`_Early`)
    askable_seconds: float | None = None

    @property
    def stage(self) -> str:
        return self.vectors.get("stage", "keyword")

    @property
    def keyword_ready_seconds(self) -> float:
        """From the start to the keyword-ready generation's publication."""
        return sum(self.seconds.get(phase, 0.0) for phase in ("walk", "parse", "interim", "link", "keyword-ready"))

    @property
    def published(self) -> str:
        return published_in(self.askable_seconds, self.keyword_ready_seconds)


def published_in(askable_seconds: float | None, keyword_ready_seconds: float) -> str:
    """When a finished build's generations were published (past tense, both times): first with the
    interim or unlinked graph (`_Early`), then linked; else the keyword-ready one."""
    if askable_seconds is None:
        return f"keyword-ready in {keyword_ready_seconds:.2f} s"
    return (f"askable in {askable_seconds:.2f} s (graph updating), "
            f"linked and keyword-ready in {keyword_ready_seconds:.2f} s")


def repository_info(path: str | Path, branch: str | None = None) -> RepositoryInfo:
    """Root, name, branch and commit (from git when the folder is a git work tree)."""
    root = check_repository_path(path)
    git_branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    commit = _git(root, "rev-parse", "HEAD")
    chosen = branch or (git_branch if git_branch and git_branch != "HEAD" else None) or "default"
    return RepositoryInfo(root, store.safe_name(root.name), chosen, commit)


def locate(info: RepositoryInfo, settings: Settings, name: str | None = None) -> store.IndexLocation:
    return store.IndexLocation(Path(settings.index.data_dir).expanduser().resolve(),
                               info.repository, store.safe_name(name or info.branch))


def build_index(path: str | Path, settings: Settings, *, name: str | None = None,
                branch: str | None = None, rebuild: bool = False,
                progress: Progress | None = None, embedder: Embedder | None = None,
                fill: bool = True, changed: list[str] | None = None) -> BuildReport:
    """Build or incrementally update the index of the repository at `path`: publish it
    keyword-ready (graph, chunks, BM25, change history, the vectors the cache already holds),
    then, with `fill`, embed the rest in priority order, publishing as it goes (`index/fill.py`).
    Without `fill` the caller runs `fill_index` later (or in another process). `changed`: the
    repository-relative paths that are all that changed since this process's last build of
    this index (a watcher's word, `index --watch`): only they are walked again (`walk.walk_told`)."""
    progress = progress or Silent()
    info = repository_info(path, branch)
    location = locate(info, settings, name)
    embedder = embedder or Embedder(settings.embedding.dtype, settings.embedding.batch_size,
                                    settings.embedding.onnx_below)
    key = build_key(info, settings, embedder.model_name)
    same, hashed = (None, None) if rebuild else _unchanged(info, location, settings, key, changed)
    if same is not None:
        progress.published(same.vectors)  # what a follower waits for: the live index can be asked
        if fill and same.stage != "complete":  # resume the fill a killed or stopped one left
            with store.build_lock(location) as lock:
                store.mark_lock(lock, "fill")
                _fill_stored(store.load_index(location), settings, embedder, progress, same)
        return same
    return _build(info, location, settings, embedder, key, hashed, rebuild, progress, fill)


def prime_warm_state(path: str | Path, settings: Settings, *, name: str | None = None,
                     branch: str | None = None, fills: bool = False) -> bool:
    """Fill this process's warm state (`index/warm_state.py`) for a live index that is up to
    date, so that the first edit a watching process (`index --watch`) re-indexes is as quick as
    the ones after it: the keyword-ready build is made again, as the first edit's would be, and
    discarded instead of published; with `fills` (the process fills after each build), the
    fill's texts are planned too and the model a small fill embeds with is loaded. Only a process that will re-index again should pay
    for this. False when there was nothing to do: the state is warm already, something changed
    (the next build warms it), or another build or fill holds the index."""
    info = repository_info(path, branch)
    location = locate(info, settings, name)
    if has_warm_state(location) or store.lock_holder(location) is not None:
        return False
    embedder = Embedder(settings.embedding.dtype, settings.embedding.batch_size, settings.embedding.onnx_below)
    key = build_key(info, settings, embedder.model_name)
    same, hashed = _unchanged(info, location, settings, key)
    if same is None:
        return False
    _build(info, location, settings, embedder, key, hashed, False, Silent(), fill=fills, publish=False)
    if fills:
        embedder.warm(embedder.choose(1))  # an edit's fill embeds a few texts
    return True


def _build(info: RepositoryInfo, location: store.IndexLocation, settings: Settings, embedder: Embedder, key: str,
           hashed: WalkResult | None, rebuild: bool, progress: Progress, fill: bool, publish: bool = True
           ) -> BuildReport:
    """`build_index`'s build, once it found something to do (`hashed`: the text-less walk that
    found it); without `publish`, the generation is discarded once made and, with `fill`, the
    fill's texts are planned but not embedded (`prime_warm_state`)."""
    backends_before = Counter(embedder.backends)
    with store.build_lock(location) as lock, _parse_cache(location) as parse_cache:
        previous, problem = (None, None) if rebuild else _previous(location, embedder)
        warm = warm_state(location, start_over=previous is None)
        clock = _PhaseClock()
        began = time.perf_counter()

        progress.start("walk", None)
        if previous is None:
            walked = remember_texts(walk_repository(info.root, settings.index,
                                                    on_files=partial(progress.advance, "walk")),
                                    parse_cache, cache_prefix())
            warm.texts = {text_key(cache_prefix(), f): f for f in walked.files}
        else:  # only what changed is read and redacted
            walked = walk_with_texts(info.root, settings.index, parse_cache, cache_prefix(), hashed, warm.texts)
        progress.finish("walk")
        clock.lap("walk")

        old_records = previous.parse_records() if previous else {}
        changes = diff_files(previous.manifest["files"] if previous else {}, walked.files)
        report = BuildReport(info, location, previous is not None, changes, files=len(walked.files),
                             skipped=walked.skipped, decoded_by_fallback=decoded_by_fallback(walked.files),
                             previous_index_problem=problem)
        report.redactions = {f.path: len(f.redactions) for f in walked.files if f.redactions}
        cache = EmbeddingCache(location.embedding_cache, location.repository_embedding_cache)
        try:
            # stale generations (the last edit's interim one) are swept once this edit is askable
            with gc_paused(), store.staging(location, sweep=False) as generation:
                progress.start("parse", len(walked.files))
                records, warm.parse_json = _parse_all(walked.files, old_records, parse_cache, settings, report,
                                                      progress, partial(_warm_up, settings), warm.parse_json)
                progress.finish("parse")
                # After the parse: its workers are forked, which a running thread would forbid.
                change_log = ChangeLog(info.root, settings.index.change_history_commits)
                store.write_bytes(generation / store.PARSED, parsed_json(records, warm.parse_json))
                solved = GenerationMemo(store.PYTHON_CALLS, previous.generation if previous else None, generation)
                guesses = settings.index.python_call_guesses
                linked_before = warm.linked
                moved = moved_graph(linked_before, records, guesses)
                interim = interim_graph(linked_before, records) if moved is None and publish else None
                if interim is None:
                    store.sweep_generations(location, keep=(generation,))
                early = None
                if moved is not None:
                    graph, report.resolution = moved
                    solved.carry()  # only lines of Python files moved: so did the solve's facts
                elif interim is not None:
                    early = _Early(interim.graph, graph_update(interim.changed),
                                   partial(_interim_text, kept=warm.graph_text, before=linked_before,
                                           redo=interim.redo, same_policy=settings.acl == warm.graph_acl), True)
                elif previous is None and publish:  # nothing to update: searchable before the link
                    early = _Early(unlinked_graph([r.parsed for r in records.values()]), graph_unlinked(), graph_text,
                                   False)
                context = _Writing(info, settings, embedder, key, walked.files, previous, warm, parse_cache, cache,
                                   change_log)
                first: _Written | None = None
                if early is not None:  # searchable now, the graph marked as not linked; linked below
                    clock.lap("parse")
                    with store.staging(location, sweep=False) as staged:
                        os.link(generation / store.PARSED, staged / store.PARSED)  # files never change once written
                        store.sync_later(staged / store.PARSED)  # its fsync in `generation` may be under way
                        early.graph.graph[GRAPH_UPDATE] = early.mark  # every reader of the graph sees it
                        first = _keyword_ready(staged, early.graph, early.text, context, report, Silent(),
                                               {GRAPH_UPDATE: early.mark}, history=early.history)
                        store.publish(location, staged, keep_previous=True)  # the solve's memo is read from it
                    report.askable_seconds = round(time.perf_counter() - began, 3)
                    report.graph_deferred = interim.changed if interim is not None else []
                    progress.published(first.manifest["vectors"])
                    clock.lap("interim")
                    # the last edit's interim generation goes now, not before this one was askable
                    store.sweep_generations(location, keep=(generation, *([previous.generation] if previous else [])))
                if moved is None:
                    graph, report.resolution = build_graph([r.parsed for r in records.values()], python_guesses=guesses,
                                                           python_memo=solved, python_facts=warm.line_free)
                clock.lap("link" if early is not None else "parse")
                warm.linked = BuiltGraph(records, guesses, graph, report.resolution)
                report.python_solve_reused = solved.hit
                report.graph_moved = moved is not None

                def text_of(labelled: nx.MultiDiGraph) -> GraphText:
                    text = _graph_text(labelled, warm.graph_text, linked_before if moved else None, records,
                                       settings.acl == warm.graph_acl)
                    warm.graph_text, warm.graph_acl = text, settings.acl
                    return text

                written = _keyword_ready(generation, graph, text_of, context, report, progress, {}, first)
                manifest, chunks = written.manifest, written.chunks
                if not publish:  # the live index is this one already: its records are these
                    store.discard(location, generation)
                    if previous is not None:
                        store.keep_parse_records(location, Path(previous.manifest.get("keyword_generation", "")),
                                                 records)
                    keep_walk(location, settings.index, walked)
                    if fill:  # the fill's plan, which its windows' word pieces are most of; nothing embedded
                        pieces = LinePieces((f.text for f in walked.files), warm.line_pieces)
                        TextPlan.of(chunks, settings.embedding.window_tokens, pieces, warm.chunk_texts)
                        warm.line_pieces = pieces.counted
                    return report
                # the interim generation, live for seconds, is left to the next staging (as a fill's
                # are): a reader that has just loaded it can still read its files. The one before the
                # edit, whose solve memo the link has read, goes as any replaced generation does.
                store.publish(location, generation, keep_previous=early is not None)
                if early is not None and previous is not None:
                    store.retire(location, previous.generation)
                store.keep_parse_records(location, generation, records)
                keep_walk(location, settings.index, walked)
                progress.advance("write")
                progress.finish("write")
                clock.lap("keyword-ready")
            report.vectors = manifest["vectors"]
            progress.published(report.vectors)
            if fill:
                store.mark_lock(lock, "fill")  # from here a re-index may stop it and take over
                pieces = LinePieces((f.text for f in walked.files), warm.line_pieces)
                _plan_and_fill(location, chunks, settings, embedder, cache, progress, report, pieces, warm.chunk_texts)
                warm.line_pieces = pieces.counted
                clock.lap("embed")
        finally:
            cache.close()
        report.embedding_backends = dict(Counter(embedder.backends) - backends_before)
        report.seconds = clock.laps
    return report


@dataclass(frozen=True)
class _Writing:
    """What writing a keyword-ready generation reads, besides its graph: the same for the
    interim generation and the linked one of one build."""

    info: RepositoryInfo
    settings: Settings
    embedder: Embedder
    key: str
    files: list[SourceFile]
    previous: store.StoredIndex | None
    warm: WarmState
    parse_cache: BlobCache
    cache: EmbeddingCache
    change_log: ChangeLog


@dataclass(frozen=True)
class _Early:
    """A graph published before the one a build links (its keyword index searchable first): the
    interim graph of an edit, or the unlinked graph of a build without a previous index; the
    mark its generation carries (`graph_mark`) and how its texts are made."""

    graph: nx.MultiDiGraph
    mark: dict
    text: Callable[[nx.MultiDiGraph], GraphText]
    history: bool  # whether it waits for the change history (`git log` of up to thousands of commits)


@dataclass(frozen=True)
class _Written:
    """A keyword-ready generation written: its manifest, its chunks, and the texts its BM25 files
    were made from (in `bm25`)."""

    manifest: dict
    chunks: list[Chunk]
    keywords: list[str]
    bm25: Path


def _keyword_ready(generation: Path, graph: nx.MultiDiGraph, text_of: Callable[[nx.MultiDiGraph], GraphText],
                   w: _Writing, report: BuildReport, progress: Progress, marks: dict,
                   first: _Written | None = None, history: bool = True) -> _Written:
    """Label `graph`, chunk, and write into `generation` everything a keyword-ready index holds
    besides its parse records (`text_of`: the texts of the labelled graph; `marks`: added to the
    manifest). `first`: the generation of the same build published before it (`_Early`), whose
    BM25 files are linked when its keyword texts are these: a header's relation rows, all that
    linking adds to a chunk, are never keyword text (`keyword_text`). Without `history`, the
    generation holds no change history (read as "built without them") and waits for no `git log`."""
    settings, warm = w.settings, w.warm
    texts = {f.path: f.text for f in w.files}
    counter = token_counter(settings.tokens.encoding)
    label_access(graph, acl_policy(settings.acl))
    known = warm.token_counts.get(counter.name)  # this process's last build's, else the previous index's
    counts = RememberedCounts(counter, _known_counts(w.previous, counter.name) if known is None else known,
                              w.parse_cache, cache_prefix(), split_over=settings.chunks.max_chunk_tokens)
    limits = (settings.chunks.max_chunk_tokens, settings.chunks.header_max_names, counter.name)
    reusable = reusable_chunks(warm.chunked, graph, texts, limits)
    report.chunks_reused = sum(map(len, reusable.values()))
    chunks = build_chunks(graph, texts, counts, settings.chunks.max_chunk_tokens,
                          settings.chunks.header_max_names, reusable)
    counts.save()
    warm.chunked = BuiltChunks.of(graph, texts, chunks, limits)
    warm.token_counts = {counter.name: {c.text: c.metadata["tokens"] for c in chunks}}
    if not chunks:
        raise IndexingError("nothing to index: no supported file with content was found", where=str(w.info.root),
                            hint="run `ragstream index --dry-run PATH` to see why files were skipped")
    text = text_of(graph)
    store.write_graph(generation / store.GRAPH, graph, text)
    progress.start("write", 5)
    keywords = [keyword_text(c) for c in chunks]
    if first is not None and first.keywords == keywords:
        store.link_folder(first.bm25, generation / store.BM25_DIR)
    else:
        write_bm25(generation / store.BM25_DIR, keywords, w.parse_cache, cache_prefix(), warm.keyword_terms,
                   warm.token_numbers)
    progress.advance("write")
    store.write_bytes(generation / store.CHUNKS, chunks_jsonl(chunks, warm.chunk_json))
    progress.advance("write")
    if history:
        changes_read = w.change_log.past_changes(chunks)
        store.write_jsonl(generation / store.CHANGE_HISTORY, changes_read)
        report.past_changes = len(changes_read)
    progress.advance("write")
    write_compact_forms(generation, graph, chunks, text)
    # Counting the windows' word pieces is the fill's work (most of a cold plan): the
    # keyword-ready index carries the vectors of the texts planned without counting --
    # each chunk's own text, and the windows this process planned before (`kept`).
    plan = TextPlan.of(chunks, settings.embedding.window_tokens, kept=warm.chunk_texts, windows=False)
    vectors = w.cache.get_many(sorted(set(plan.keys)))
    report.embedded_cached = sum(1 for k in plan.keys if k in vectors)
    write_vectors(generation, plan, vectors)
    progress.advance("write")
    _fill_counts(report, graph, chunks, text)
    manifest = _manifest(report, settings, w.embedder, w.files, w.previous, generation)
    manifest["build_key"] = w.key
    manifest["vectors"] = coverage(plan, vectors, backend=_resumed_backend(w.previous))
    manifest["keyword_generation"] = generation.name  # what a fill's generations share
    manifest.update(marks)
    store.write_json(generation / store.MANIFEST, manifest)
    return _Written(manifest, chunks, keywords, generation / store.BM25_DIR)


def fill_index(path: str | Path, settings: Settings, *, name: str | None = None, branch: str | None = None,
               progress: Progress | None = None, embedder: Embedder | None = None) -> BuildReport:
    """Go on with the semantic fill of the live index (a default `ragstream index` runs this in a
    background process once the index is keyword-ready). Fails at once when a build holds it."""
    progress = progress or Silent()
    info = repository_info(path, branch)
    location = locate(info, settings, name)
    embedder = embedder or Embedder(settings.embedding.dtype, settings.embedding.batch_size,
                                    settings.embedding.onnx_below)
    # The model loads before the lock is taken: a re-index meanwhile (an edit under `index
    # --watch`) does not wait seconds for a fill that has embedded nothing yet to stop.
    planned = _live_manifest(location)
    if planned and (vectors := stage_of(planned))["stage"] != "complete":
        # A fill not begun yet chooses its backend once it counts the windows: the chunks
        # without a vector are the least it embeds, which decides it unless it is a small job.
        embedder.warm(vectors.get("backend") or embedder.choose(vectors["chunks"] - vectors["heads"]))
    with store.build_lock(location, role="fill"):
        stored = store.load_index(location)
        report = BuildReport(info, location, True, FileChanges(unchanged=len(stored.manifest["files"])),
                             files=stored.manifest["counts"]["files"])
        report.vectors = stage_of(stored.manifest)
        # A build that published while the model loaded started a fill of its own: that one fills.
        if planned is None or stored.manifest.get("keyword_generation") == planned.get("keyword_generation"):
            _fill_stored(stored, settings, embedder, progress, report)
    return report


def _live_manifest(location: store.IndexLocation) -> dict | None:
    """The live index's manifest; None when there is no usable index (the fill says why under its lock)."""
    if store.current_generation(location) is None:
        return None
    try:
        return store.load_index(location).manifest
    except IndexLoadError:
        return None


def _fill_stored(stored: store.StoredIndex, settings: Settings, embedder: Embedder, progress: Progress,
                 report: BuildReport) -> None:
    """Embed what the live index `stored` still lacks, publishing as it goes (the caller holds
    its lock); the fill's figures and time go into `report`."""
    clock = _PhaseClock()
    chunks = stored.chunks()
    report.chunks = len(chunks)
    backends_before = Counter(embedder.backends)
    cache = EmbeddingCache(stored.location.embedding_cache, stored.location.repository_embedding_cache)
    try:
        _plan_and_fill(stored.location, chunks, settings, embedder, cache, progress, report)
    finally:
        cache.close()
    clock.lap("embed")
    report.embedding_backends = dict(Counter(embedder.backends) - backends_before)
    report.seconds = {**report.seconds, **clock.laps}


def _resumed_backend(previous: store.StoredIndex | None) -> str | None:
    """The backend of the fill the previous index left unfinished, kept in the manifest: a
    resumed fill keeps it, so its vectors stay those of one build (a new fill chooses its own
    by how many texts it embeds, `fill_vectors`, and records it when it publishes its plan)."""
    vectors = previous.manifest.get("vectors") if previous else None
    if vectors and vectors["stage"] != "complete":
        return vectors.get("backend")
    return None


def _plan_and_fill(location: store.IndexLocation, chunks, settings: Settings, embedder: Embedder,
                   cache: EmbeddingCache, progress: Progress, report: BuildReport, pieces: LinePieces | None = None,
                   kept: dict | None = None) -> None:
    """Plan every text to embed, windows included (`TextPlan.of`, with `pieces` and `kept` when
    this process has them), then embed what the cache lacks (`report.vectors`: the live index's
    coverage, whose backend a resumed fill keeps)."""
    plan = TextPlan.of(chunks, settings.embedding.window_tokens, pieces, kept)
    vectors = cache.get_many(sorted(set(plan.keys)))
    report.embedded_cached = sum(1 for k in plan.keys if k in vectors)
    _run_fill(location, plan, chunks, vectors, embedder, cache, report.vectors.get("backend"), progress, report)


def _run_fill(location: store.IndexLocation, plan: TextPlan, chunks, vectors, embedder: Embedder,
              cache: EmbeddingCache, backend: str | None, progress: Progress, report: BuildReport) -> None:
    def heard(event: str, amount: int) -> None:
        if event == "start":
            progress.start("embed", amount)
        else:
            progress.advance("embed", amount)

    def published(manifest: dict) -> None:
        report.vectors = manifest["vectors"]
        progress.published(report.vectors)

    result = fill_vectors(location, plan, chunks, vectors, embedder, cache, backend, heard, published)
    progress.finish("embed")
    report.embedded_new = result.embedded
    report.fill_stopped = result.stopped


def _graph_text(graph: nx.MultiDiGraph, kept: GraphText | None, moved_from: BuiltGraph | None, records: dict[str, store.ParseRecord],
                same_policy: bool) -> GraphText:
    """The texts of the graph (`graph_text`): when it was moved from the graph this process built
    last (`moved_from`) and labelled under the same access policy, made from that graph's texts
    (`kept`) with the moved files' nodes and edges encoded again; else from scratch."""
    if moved_from is None or kept is None or kept.graph is not moved_from.graph or not same_policy:
        return graph_text(graph)
    moved = [path for path, record in records.items() if moved_from.records[path].key != record.key]
    return graph_text(graph, kept, moved)


def _interim_text(graph: nx.MultiDiGraph, kept: GraphText | None, before: BuiltGraph | None, redo: set[str],
                  same_policy: bool) -> GraphText:
    """The texts of an interim graph (`graph_interim`): made from those of the graph it was made
    from (`kept`, when they are that graph's, labelled under the same policy), else from scratch."""
    if kept is not None and before is not None and kept.graph is before.graph and same_policy:
        try:
            return patched_text(graph, kept, redo)
        except ValueError:  # not the graph it was made from after all: encoded whole
            pass
    return graph_text(graph)


def label_access(graph, policy: AclPolicy) -> None:
    """Give every graph node with a file the policy's labels for its path (`acl`); its chunks
    copy them. Labels are not embedded text, so a policy change re-embeds only the headers
    whose neighbours' visibility it changes. A rule that labels no indexed path while another
    spelling of it would is refused first (`AclPolicy.check`): it would leave public what it meant."""
    policy.check(dict.fromkeys(path for _, path in graph.nodes(data="path") if path))  # each path once, in order
    labels: dict[str, dict] = {}  # per path: a file's nodes are many, its labels one
    for node, path in graph.nodes(data="path"):
        if path:
            if path not in labels:
                labels[path] = policy.for_path(path)
            graph.nodes[node]["acl"] = {**labels[path]}


def diff_files(old: dict[str, str], files: list[SourceFile]) -> FileChanges:
    """Files added, changed (by content hash) and deleted since the index was built."""
    changes = FileChanges()
    current = {f.path: f.sha256 for f in files}
    for path, sha in current.items():
        if path not in old:
            changes.added.append(path)
        elif old[path] != sha:
            changes.changed.append(path)
        else:
            changes.unchanged += 1
    changes.deleted = sorted(set(old) - set(current))
    return changes


def build_key(info: RepositoryInfo, settings: Settings, model_name: str) -> str:
    """A hash of everything besides the files' bytes that a build's output depends on: the
    parser, redaction and format versions, the settings that shape the index, the embedding
    model, and the repository's root, branch and commit (the change history). Two builds of the
    same files under the same key make the same index."""
    shaping = {"index": {k: v for k, v in asdict(settings.index).items()
                         if k not in ("data_dir", "watch_debounce_ms", "watch_in_workbench")},
               "chunks": asdict(settings.chunks), "embedding": asdict(settings.embedding),
               "tokens": asdict(settings.tokens), "acl": asdict(settings.acl)}
    versions = {"parser": PARSER_VERSION, "redaction": REDACTION_VERSION, "format": store.FORMAT_VERSION}
    where = {"root": str(info.root), "branch": info.branch, "commit": info.commit, "model": model_name}
    blob = orjson.dumps({"versions": versions, "settings": shaping, "where": where}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


def _unchanged(info: RepositoryInfo, location: store.IndexLocation, settings: Settings, key: str,
               changed: list[str] | None = None) -> tuple[BuildReport | None, WalkResult | None]:
    """The report of a re-index with nothing to do -- the live index was built under `key` from
    the files a text-less walk finds now, with the same files skipped for the same reasons --
    or None when something is to be built, with that walk when one was made (the build reuses it).
    With `changed` (`build_index`), the walk is told what changed since this process's last one."""
    last = take_walk(location, settings.index)
    if store.current_generation(location) is None:
        return None, None
    started = time.perf_counter()
    try:
        manifest = store.load_index(location).manifest
    except IndexLoadError:
        return None, None  # the build says why it starts over
    if manifest.get("build_key") != key or manifest.get(GRAPH_UPDATE):  # an interim graph is linked now
        return None, None
    told = None
    if changed is not None and last is not None and last.root == info.root and not _inside(location.data_dir, info.root):
        told = walk_told(last, settings.index, changed)
    walked = told or walk_repository(info.root, settings.index, with_text=False)
    changes = diff_files(manifest["files"], walked.files)
    counts = manifest["counts"]
    if changes.stale or counts["skipped_by_reason"] != walked.skipped_by_reason():
        return None, walked
    report = BuildReport(info, location, True, changes, files=len(walked.files), chunks=counts["chunks"],
                         split_chunks=counts["split_chunks"], nodes_by_kind=Counter(counts["nodes_by_kind"]),
                         edges_by_type=Counter(counts["edges_by_type"]), skipped=walked.skipped,
                         decoded_by_fallback=decoded_by_fallback(walked.files),
                         past_changes=counts["past_changes"], vectors=stage_of(manifest), unchanged=True,
                         sql_coverage=SqlCoverage.from_dict(counts.get("sql_coverage")))
    report.seconds = {"walk": round(time.perf_counter() - started, 3)}
    keep_walk(location, settings.index, walked)
    return report, walked


def _inside(folder: Path, root: Path) -> bool:
    """Whether `folder` lies in the repository at `root` (a watcher leaves the data folder out; a walk may not)."""
    return folder == root or root in folder.parents


def index_status(path: str | Path, settings: Settings, *, name: str | None = None,
                 branch: str | None = None) -> tuple[store.StoredIndex, FileChanges]:
    """Which files changed since the index was built, without building anything."""
    info = repository_info(path, branch)
    stored = store.load_index(locate(info, settings, name))
    walked = walk_repository(info.root, settings.index, with_text=False)
    return stored, diff_files(stored.manifest["files"], walked.files)


# Bump when a parser's output changes, so cached parse results of unchanged files are redone.
PARSER_VERSION = 462


def cache_prefix() -> str:
    """What every key of the parse cache's file starts with: entries of other parser or
    redaction versions are wiped, since parses and texts made under other rules may hold what
    today's redact."""
    return f"{PARSER_VERSION}:{REDACTION_VERSION}:"


@contextmanager
def _parse_cache(location: store.IndexLocation) -> Iterator[BlobCache]:
    """The repository's cache of parse results and redacted texts, without other versions' entries."""
    cache = BlobCache(location.parse_cache, "parsed", "record")
    try:
        cache.keep_only(cache_prefix())
        yield cache
    finally:
        cache.close()


def parse_key(source: SourceFile, module: str | None, sql_dialect: str) -> str:
    """Everything a file's parse result depends on: its bytes, how it is read, which parser
    version and which redaction patterns produced it."""
    return f"{cache_prefix()}{source.sha256}:{source.language}:{module or ''}:{sql_dialect}:{source.generated}:{source.fallback}"


def _parse_all(files: list[SourceFile], old_records: dict[str, store.ParseRecord], cache: BlobCache,
               settings: Settings, report: BuildReport, progress: Progress, meanwhile: Callable[[], None],
               known_json: dict[str, bytes]) -> tuple[dict[str, store.ParseRecord], dict[str, bytes]]:
    """Each file's parse record: from the previous index, else the repository's parse cache,
    else parsed now (and cached); `meanwhile` runs while worker processes parse. Beside them,
    the JSON of each parse result that is at hand (parsed now, from the cache, or in
    `known_json`), by parse key."""
    modules = module_names([f.path for f in files if f.language == "python"])
    keys = {f.path: parse_key(f, modules.get(f.path), settings.index.sql_dialect) for f in files}
    wanted = {keys[f.path] for f in files
              if (old := old_records.get(f.path)) is None or old.key != keys[f.path]}
    cached = cache.get_many(sorted(wanted))
    unparsed = [f for f in files if keys[f.path] in wanted and keys[f.path] not in cached]
    parsed_now = dict(zip((f.path for f in unparsed),
                          parse_many([(f, modules.get(f.path)) for f in unparsed], settings.index.sql_dialect,
                                     lambda: progress.advance("parse"), meanwhile)))
    records: dict[str, store.ParseRecord] = {}
    new: dict[str, bytes] = {}
    json_of: dict[str, bytes] = {}
    for source in files:
        key = keys[source.path]
        record = old_records.get(source.path)
        if source.path in parsed_now:
            parsed, new[key] = parsed_now[source.path]
            record = store.ParseRecord(key, parsed)
            report.reparsed += 1
        else:
            if record is None or record.key != key:
                record = store.ParseRecord(key, ParsedFile.from_dict(orjson.loads(cached[key])))
            progress.advance("parse")
        records[source.path] = record
        if (blob := new.get(key) or cached.get(key) or known_json.get(key)) is not None:
            json_of[key] = blob
        if record.parsed.error:
            report.parse_failures[source.path] = record.parsed.error
        report.parse_warnings.extend(f"{source.path}: {w}" for w in record.parsed.warnings)
    if new:
        cache.put_many(new)
    return records, json_of


def _warm_up(settings: Settings) -> None:
    """Load what the steps after the parse load once per process -- the token encoding --
    while worker processes parse and this one would only wait. (The model's tokenizer and
    session are the fill's, and BM25's files are written without bm25s: a keyword-ready index
    needs none of them.)"""
    token_counter(settings.tokens.encoding)


def _previous(location: store.IndexLocation, embedder: Embedder
              ) -> tuple[store.StoredIndex | None, str | None]:
    """The live index to update incrementally, or None (and why) when a full build is needed."""
    if store.current_generation(location) is None:
        return None, None
    try:
        previous = store.load_index(location)
    except IndexLoadError as exc:
        return None, exc.message
    if previous.manifest["model"]["name"] != embedder.model_name:
        return None, "the embedding model changed"
    return previous, None


def _known_counts(previous: store.StoredIndex | None, encoding: str) -> dict[str, int]:
    """Each previous chunk's text -> its tokens, when they were counted in `encoding`."""
    if previous is None or previous.manifest.get("tokenizer") != encoding:
        return {}
    return {chunk.text: chunk.metadata["tokens"] for chunk in previous.chunks()}


def _fill_counts(report: BuildReport, graph, chunks, text: GraphText) -> None:
    report.chunks = len(chunks)
    report.split_chunks = sum(1 for c in chunks if "parent_chunk" in c.metadata)
    report.nodes_by_kind = Counter(kind for _, kind in graph.nodes(data="kind"))
    report.sql_coverage = sql_coverage(graph)
    # each edge's key by its number in the graph's texts (keys in order of first use, as the edges' own)
    report.edges_by_type = Counter(dict(zip(text.keys, np.bincount(text.edge_key, minlength=len(text.keys)).tolist())))


def _manifest(report: BuildReport, settings: Settings, embedder: Embedder,
              files: list[SourceFile], previous: store.StoredIndex | None, generation: Path) -> dict:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "format_version": store.FORMAT_VERSION,
        "repository": report.info.repository,
        "branch": report.info.branch,
        "commit": report.info.commit,
        "active_index": report.location.active_index,
        "source_root": str(report.info.root),
        "created_at": previous.manifest["created_at"] if previous else now,
        "updated_at": now,
        "model": {"name": embedder.model_name, "dimension": embedder.dimension,
                  "dtype": embedder.dtype},
        "tokenizer": settings.tokens.encoding,
        "files": {f.path: f.sha256 for f in files},
        "counts": {
            "files": report.files, "chunks": report.chunks, "split_chunks": report.split_chunks,
            "nodes": sum(report.nodes_by_kind.values()), "edges": sum(report.edges_by_type.values()),
            "nodes_by_kind": dict(sorted(report.nodes_by_kind.items())),
            "edges_by_type": dict(sorted(report.edges_by_type.items())),
            "skipped_by_reason": dict(sorted(Counter(s.reason for s in report.skipped).items())),
            "too_large": too_large(report.skipped),
            "decoded_by_fallback": report.decoded_by_fallback,
            "parse_failures": len(report.parse_failures),
            "past_changes": report.past_changes,
            "sql_coverage": report.sql_coverage.as_dict() if report.sql_coverage else {},
        },
        "artifacts": store.artifact_sizes(generation),
    }


class _PhaseClock:
    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.laps[phase] = round(now - self._last, 3)
        self._last = now


def _git(root: Path, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                                timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (result.stdout.strip() or None) if result.returncode == 0 else None
