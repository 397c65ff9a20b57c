"""The index store: one folder per index, written atomically, loaded with checks.

Layout: `<data_dir>/indexes/<repository>/<active_index>/` holds generations `gen-*/` and a
`CURRENT` file naming the live one. A build writes a new generation beside the live one and
then replaces `CURRENT` in one `os.replace`; a crash or Ctrl-C at any moment leaves the previous
generation live and loadable. The repository folder also holds the parse cache that all its
indexes (branches, commits) share; the data folder holds the embedding cache every index shares.
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import orjson

from ragstream.errors import IndexLoadError, IndexingError
from ragstream.index.change_history import PastChange
from ragstream.index.graph_text import GraphText, graph_text
from ragstream.index.model import ParsedFile
from ragstream.index.model import Chunk

FORMAT_VERSION = 5  # 5: headers name only neighbours no filter can hide (a caller's are rendered at fetch); 4: semantic windows for long chunks; 3: BM25 tokens stemmed; 2: BM25 without caller/callee lists
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
GRAPH = "graph.json"
PARSED = "parsed.json"
FAISS = "faiss.index"
BM25_DIR = "bm25"
PYTHON_CALLS = "python_calls.bin"  # the Python call solve, for the next build to reuse (`generation_memo`)
CHANGE_HISTORY = "change_history.jsonl"  # optional: indexes built before it have none
CURRENT = "CURRENT"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A repository or index name usable as one folder name."""
    cleaned = _SAFE_NAME.sub("-", name).strip(".-")
    if not cleaned:
        raise IndexingError(f"name {name!r} has no usable characters", where="--name")
    return cleaned


@dataclass(frozen=True)
class IndexLocation:
    data_dir: Path
    repository: str
    active_index: str

    @property
    def repository_dir(self) -> Path:
        return self.data_dir / "indexes" / self.repository

    @property
    def index_dir(self) -> Path:
        return self.repository_dir / self.active_index

    @property
    def embedding_cache(self) -> Path:
        """Vectors by text hash, shared by every repository under the data folder: a vendored
        file or a fork embeds once."""
        return self.data_dir / "embedding_cache.sqlite"

    @property
    def repository_embedding_cache(self) -> Path:
        """Where the repository's own embedding cache was kept before it was shared: still read."""
        return self.repository_dir / "embedding_cache.sqlite"

    @property
    def parse_cache(self) -> Path:
        return self.repository_dir / "parse_cache.sqlite"

    def rebuild_hint(self, source: str | None = None) -> str:
        return (f"rebuild it: ragstream index {source or '<repository path>'} "
                f"--name {self.active_index} --rebuild")


def current_generation(location: IndexLocation) -> Path | None:
    """The live generation folder, or None when the index was never written."""
    pointer = location.index_dir / CURRENT
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8").strip()
    return location.index_dir / name if name else None


STOP = "STOP"  # asks a running semantic fill to stop after its batch (a re-index wants the lock)
PREEMPT_WAIT_S = 60.0  # how long a build waits for a fill it asked to stop


@contextmanager
def build_lock(location: IndexLocation, role: str = "build") -> Iterator[Any]:
    """One builder per index at a time. A build meeting another build fails at once instead of
    racing; one meeting a semantic fill (`role` "fill") asks it to stop and takes over, since
    the fill resumes from the embedding cache when this build publishes. The holder's role is
    written in the lock file, for `lock_holder`."""
    location.index_dir.mkdir(parents=True, exist_ok=True)
    with open(location.index_dir / ".lock", "a+") as handle:
        if not _try_lock(handle):
            holder = lock_holder(location)
            if role == "fill" or not (holder or "").startswith("fill"):
                raise IndexingError("another build of this index is running" + (f" ({holder})" if holder else ""),
                                    where=str(location.index_dir))
            _preempt(location, handle)
        stop = location.index_dir / STOP
        stop.unlink(missing_ok=True)
        mark_lock(handle, role)
        try:
            yield handle
        finally:
            handle.truncate(0)


def mark_lock(handle, role: str) -> None:
    """Say in the held lock file who holds it (a build turns into a fill after keyword-ready)."""
    handle.seek(0)
    handle.truncate(0)
    handle.write(f"{role} pid {os.getpid()}")
    handle.flush()


def lock_holder(location: IndexLocation) -> str | None:
    """Who builds this index now ("build pid 12" or "fill pid 12"), or None when nobody does.
    Read from the note the holder writes, never by taking the lock (a probe would make a
    starting build fail); a note left by a killed holder names a process that is gone."""
    try:
        note = (location.index_dir / ".lock").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    pid = note.rsplit(" ", 1)[-1]
    return note if pid.isdigit() and pid_alive(int(pid)) else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


def stop_requested(location: IndexLocation) -> bool:
    return (location.index_dir / STOP).exists()


def _try_lock(handle) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _preempt(location: IndexLocation, handle) -> None:
    (location.index_dir / STOP).touch()
    deadline = time.monotonic() + PREEMPT_WAIT_S
    while not _try_lock(handle):
        if time.monotonic() > deadline:
            raise IndexingError(f"a semantic fill of this index did not stop within {PREEMPT_WAIT_S:.0f} s",
                                where=str(location.index_dir))
        time.sleep(0.05)


def new_generation(location: IndexLocation, keep: Iterable[Path] = (), sweep: bool = True) -> Path:
    """An empty staging folder for the next generation; stale ones from killed builds go (all
    but the live one and `keep`: a build's own staging folder, when it publishes another first),
    unless `sweep` is off (the caller calls `sweep_generations` later: removing a generation is an unlink of
    every file, tens of ms that an edit's first publication should not wait for)."""
    if sweep:
        sweep_generations(location, keep)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    path = location.index_dir / f"gen-{stamp}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
    path.mkdir(parents=True)
    return path


def sweep_generations(location: IndexLocation, keep: Iterable[Path] = ()) -> None:
    """Remove every generation but the live one and `keep` (stale stagings, generations replaced)."""
    kept = {current_generation(location), *keep}
    for old in location.index_dir.glob("gen-*"):
        if old not in kept:
            shutil.rmtree(old, ignore_errors=True)


def linked_generation(location: IndexLocation, live: Path, replaced: Iterable[str]) -> Path:
    """A staging generation holding hard links to the live one's files, less `replaced` (which
    the caller writes anew): a fill publishes new vectors without copying the rest. Files of a
    generation are never changed after it is written, so sharing them is safe."""
    generation = new_generation(location)
    skip = set(replaced)
    for path in sorted(live.rglob("*")):
        name = path.relative_to(live).as_posix()
        if path.is_file() and name not in skip:
            (generation / name).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, generation / name)
    return generation


def link_folder(source: Path, target: Path) -> None:
    """Hard links in `target` (made here) to the files of the folder `source`, a published
    generation's (on disk already) that the generation being staged holds the same: files never
    change once written. `publish` fsyncs the new folder."""
    target.mkdir(parents=True)
    for path in sorted(source.iterdir()):
        os.link(path, target / path.name)


@contextmanager
def staging(location: IndexLocation, keep: Iterable[Path] = (), sweep: bool = True) -> Iterator[Path]:
    """A new generation to write into (`keep`, `sweep`: as `new_generation`'s); if the build fails
    or is interrupted, it is removed (and so is an index folder that never had a live generation).
    Its files are fsynced on threads as they are written (`write_bytes`, `sync_later`), and
    `publish` waits for them: the disk's flushes overlap the build's work."""
    generation = new_generation(location, keep, sweep)
    _STAGED[generation] = _Syncs()
    try:
        yield generation
    except BaseException:
        discard(location, generation)
        raise
    finally:
        if (syncs := _STAGED.pop(generation, None)) is not None:
            syncs.wait(check=False)  # published (waited for) or discarded: no thread outlives the staging


def discard(location: IndexLocation, generation: Path) -> None:
    """Remove a staged generation that will not be published (and an index folder that never
    had a live generation)."""
    if (syncs := _STAGED.pop(generation, None)) is not None:
        syncs.wait(check=False)  # never published: what its fsyncs found does not matter
    shutil.rmtree(generation, ignore_errors=True)
    if current_generation(location) is None:
        shutil.rmtree(location.index_dir, ignore_errors=True)


def publish(location: IndexLocation, generation: Path, keep_previous: bool = False) -> None:
    """Make `generation` live in one atomic step, once every file and folder of it is on disk,
    then drop the previous one -- or, with `keep_previous` (a semantic fill, publishing every few
    seconds), leave it to the next generation's staging, so a reader that has just loaded it can
    still read its files."""
    previous = current_generation(location)
    _synced(generation)
    tmp = location.index_dir / f"{CURRENT}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(generation.name)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, location.index_dir / CURRENT)
    _fsync_dir(location.index_dir)
    if previous and not keep_previous:
        retire(location, previous)


def retire(location: IndexLocation, generation: Path) -> None:
    """Remove a generation that is no longer live (never the live one), as `publish` removes the
    one it replaces: a reader still holding it keeps what it has loaded, as after any publish."""
    if generation != current_generation(location):
        shutil.rmtree(generation, ignore_errors=True)


def write_json(path: Path, data: Any) -> None:
    """JSON (dataclasses included) written and fsynced; orjson is ~10x the stdlib's speed."""
    write_bytes(path, orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """One JSON object (dataclasses included) a line, written and fsynced."""
    write_bytes(path, b"".join(orjson.dumps(row) + b"\n" for row in rows))


def write_bytes(path: Path, data: bytes) -> None:
    """`data` written to `path` and fsynced: on a thread, which `publish` waits for, when `path`
    lies in a staged generation (`staging`), else before this returns."""
    with open(path, "wb") as handle:
        handle.write(data)
    sync_later(path)


def sync_later(path: Path) -> None:
    """fsync the file at `path` (written by a library, not `write_bytes`, or linked from a
    generation still staged) as `write_bytes` fsyncs what it writes."""
    syncs = next((_STAGED[folder] for folder in path.parents if folder in _STAGED), None)
    fd = os.open(path, os.O_RDONLY)
    if syncs is None:
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    else:
        syncs.start(fd)


class _Syncs:
    """The fsyncs under way of one staged generation's files, on a few threads (the disk flushes
    on every fsync, ~3 ms here even for a small file: flushes on threads overlap each other and
    the build's work, where in line a build of ~30 files waited ~0.15 s for them). The threads
    start with the first fsync -- after the build's parse, whose forked workers a running thread
    would forbid (`workers`) -- and are joined by `wait`, before the staging ends."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future] = []

    def start(self, fd: int) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ragstream-fsync")
        self._pending.append(self._pool.submit(_fsync_closed, fd))

    def wait(self, check: bool = True) -> None:
        """Join every fsync started and the threads; with `check`, raise the first one's error."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        pending, self._pending = self._pending, []
        errors = [error for future in pending if (error := future.exception()) is not None]
        if check and errors:
            raise errors[0]


def _fsync_closed(fd: int) -> None:
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Staged generations (`staging`) -> the fsyncs of their files under way.
_STAGED: dict[Path, _Syncs] = {}


def _synced(generation: Path) -> None:
    """Wait until every file and folder of `generation` is on disk: its files' fsyncs under way
    joined (a file linked from an older generation is on disk already), its folders fsynced
    together on threads."""
    syncs = _STAGED.get(generation) or _Syncs()
    for folder in [generation, *(p for p in generation.rglob("*") if p.is_dir())]:
        syncs.start(os.open(folder, os.O_RDONLY))
    syncs.wait()


def write_graph(path: Path, graph: nx.MultiDiGraph, text: GraphText | None = None) -> None:
    """`graph.json`: node-link data (`text`: the graph's texts when made already, `graph_text`)."""
    write_bytes(path, (text or graph_text(graph)).graph_json())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class ParseRecord:
    """A file's parse result, reusable while `key` (content, module name, dialect) holds."""

    key: str
    parsed: ParsedFile


# Per index folder, the keyword generation this process last published there and its parse
# records: a watching process re-indexes after every edit, and reading all parse records back
# from JSON costs more than most of what an edit changes. Generations are never changed once
# written and a fill's generations share their keyword generation's records, so the kept ones are
# the file's. Parse results are not changed after parsing (the graph build makes new ones).
_KEPT_RECORDS: dict[Path, tuple[str, dict[str, ParseRecord]]] = {}


def keep_parse_records(location: IndexLocation, generation: Path, records: dict[str, ParseRecord]) -> None:
    """Remember the records of `generation`, just published, for this process's next re-index."""
    _KEPT_RECORDS[location.index_dir] = (generation.name, dict(records))


def forget_parse_records(location: IndexLocation) -> None:
    """Drop what `keep_parse_records` kept for the index: the next build reads them back, as a new process does."""
    _KEPT_RECORDS.pop(location.index_dir, None)


# --- loading ---------------------------------------------------------------------------

@dataclass
class StoredIndex:
    """An index as loaded from disk (FAISS and BM25 are loaded by the retrieval backend)."""

    location: IndexLocation
    generation: Path
    manifest: dict[str, Any]

    def chunks(self) -> list[Chunk]:
        return [Chunk(**row) for row in self._jsonl(CHUNKS)]

    def graph(self) -> nx.MultiDiGraph:
        data = self._json(GRAPH)
        # the stubs type the result as Graph, whatever `directed` and `multigraph` ask for
        return nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")  # type: ignore[return-value]

    def parse_records(self) -> dict[str, ParseRecord]:
        """path -> the file's parse result and the key it was made under (the ones this process
        kept, when it built this index's keyword generation itself)."""
        generation, kept = _KEPT_RECORDS.get(self.location.index_dir, ("", {}))
        if generation and generation == self.manifest.get("keyword_generation"):
            return dict(kept)
        return {path: ParseRecord(row["key"], ParsedFile.from_dict(row["parsed"]))
                for path, row in self._json(PARSED).items()}

    def change_history(self) -> list[PastChange] | None:
        """The indexed past changes, newest first; None when the index was built without them."""
        if not (self.generation / CHANGE_HISTORY).exists():
            return None
        return [PastChange(row["commit"], row["message"], tuple(row["targets"])) for row in self._jsonl(CHANGE_HISTORY)]

    @property
    def faiss_path(self) -> Path:
        return self.generation / FAISS

    @property
    def bm25_dir(self) -> Path:
        return self.generation / BM25_DIR

    def _json(self, name: str) -> Any:
        try:
            return orjson.loads((self.generation / name).read_bytes())
        except (OSError, ValueError) as exc:
            raise self._corrupt(name, exc) from exc

    def _jsonl(self, name: str) -> list[dict]:
        try:
            with open(self.generation / name, "rb") as handle:
                return [orjson.loads(line) for line in handle]
        except (OSError, ValueError) as exc:
            raise self._corrupt(name, exc) from exc

    def _corrupt(self, name: str, exc: Exception) -> IndexLoadError:
        return IndexLoadError(f"index file {name} is unreadable ({exc})",
                              where=str(self.generation / name),
                              hint=self.location.rebuild_hint(self.manifest.get("source_root")))


def load_index(location: IndexLocation, optional: tuple[str, ...] = ()) -> StoredIndex:
    """The live generation, after checking its manifest, version and files. Artifacts under an
    `optional` prefix may be missing (the caller copes); present ones must be whole."""
    hint = location.rebuild_hint()
    if not location.index_dir.is_dir():
        raise IndexLoadError("no such index", where=str(location.index_dir),
                             hint=f"build it: ragstream index <repository path> --name {location.active_index}")
    generation = current_generation(location)
    if generation is None or not generation.is_dir():
        raise IndexLoadError("index has no complete generation (CURRENT is missing or points "
                             "nowhere): it was never finished", where=str(location.index_dir), hint=hint)
    manifest_path = generation / MANIFEST
    try:
        manifest = orjson.loads(manifest_path.read_bytes())
    except (OSError, ValueError) as exc:
        raise IndexLoadError(f"manifest is missing or corrupt ({exc})", where=str(manifest_path),
                             hint=hint) from exc
    hint = location.rebuild_hint(manifest.get("source_root"))
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise IndexLoadError(f"index format version {version} is not the supported {FORMAT_VERSION}",
                             where=str(manifest_path), hint=hint)
    for name, size in manifest.get("artifacts", {}).items():
        path = generation / name
        actual = _size(path)
        if actual == -1 and name.startswith(optional):
            continue
        if actual != size:
            raise IndexLoadError(f"{name} is {actual} bytes, the manifest says {size}: the index is "
                                 "partial or corrupt", where=str(path), hint=hint)
    return StoredIndex(location, generation, manifest)


def artifact_sizes(generation: Path) -> dict[str, int]:
    """Size of every file the manifest vouches for (the manifest itself excepted)."""
    return {p.relative_to(generation).as_posix(): p.stat().st_size
            for p in sorted(generation.rglob("*")) if p.is_file() and p.name != MANIFEST}


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else -1
