"""What an answer was made from -- its index's generation, the commit it was built at and the
content hash of every file the index held -- and which files changed since
(`Controller.changes_since`), so a page can say "2 files changed since this answer".

An answer keeps only the digest of the file table (`Basis`, in `SuperPrompt.extras["basis"]`);
the table itself is kept once per digest in the data folder (`answer_sources/<digest>.json`,
written atomically), so the answers of one generation share one file.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path, PurePosixPath

import orjson

from ragstream.config import Settings
from ragstream.errors import IndexLoadError, RagstreamError, RetrievalError
from ragstream.index import store
from ragstream.index.acl import acl_policy
from ragstream.index.walk import walk_repository
from ragstream.output_files import output_folder, write_output_file
from ragstream.retrieval.filters import RetrievalFilters

SOURCES_DIR = "answer_sources"  # in index.data_dir, beside the indexes
BASIS = "basis"  # the key of `SuperPrompt.extras` the controller records it under
UNWATCHED_TREE_SECONDS = 2.0  # a source folder no watcher follows is walked again after this long
TABLES_KEPT = 50  # answer file tables kept in SOURCES_DIR, the most recently recorded (older answers: "not known")
TABLES_CACHED = 16  # answer file tables a process holds in memory, the most recently read
_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Basis:
    """The index an answer was made from, as it was then."""

    repository: str
    index: str  # the index folder's name
    generation: str  # the live generation's folder name
    commit: str | None  # the commit it was built at (None: not a git work tree)
    files: str  # the digest of its file table (repository-relative path -> sha256 of the bytes)

    def __post_init__(self) -> None:
        # It names a file in the data folder, and may come from a client (an MCP call).
        if not _DIGEST.fullmatch(self.files):
            raise RetrievalError(f"{self.files!r} is not a file table's digest (64 hex digits)", where="made_from")

    @classmethod
    def of(cls, extras: dict, where: str = f"extras.{BASIS}") -> Basis | None:
        """The basis recorded in a state's `extras`, None when there is none; a state file
        (edited, or from another version) whose basis is not one is refused, saying `where`."""
        recorded = extras.get(BASIS)
        if not recorded:
            return None
        names = [f.name for f in fields(cls)]
        if (not isinstance(recorded, dict) or sorted(recorded) != sorted(names)
                or not all(isinstance(value, str) or (key == "commit" and value is None)
                           for key, value in recorded.items())):
            raise RetrievalError(f"not an answer's basis: expected a mapping of exactly {', '.join(names)} "
                                 "(text; commit may be null)", where=where)
        try:
            return cls(**recorded)
        except RetrievalError as exc:
            raise RetrievalError(exc.message, where=where) from None


def table_digest(files: dict[str, str]) -> str:
    return hashlib.sha256(orjson.dumps(files, option=orjson.OPT_SORT_KEYS)).hexdigest()


def record_basis(data_dir: Path, location: store.IndexLocation) -> Basis | None:
    """The basis of an answer made now from the index at `location`, its file table kept;
    None when the index cannot be read (the answer then fails or says why on its own) or the
    table cannot be kept (the page then says the changes are not known)."""
    try:
        stored = store.load_index(location)
    except (IndexLoadError, OSError):
        return None
    manifest = stored.manifest
    files: dict[str, str] = manifest["files"]
    digest = table_digest(files)
    kept = data_dir / SOURCES_DIR / f"{digest}.json"
    try:
        os.utime(kept)  # recorded again: the newest, so the last to be pruned
    except FileNotFoundError:
        try:
            write_output_file(output_folder(kept.parent, "answer sources") / kept.name, orjson.dumps(files),
                              "answer sources")
        except RagstreamError:  # a data folder that cannot be written must not fail the question
            return None
        _prune_tables(kept.parent)
    except OSError:  # kept, but not marked recent (a read-only data folder): it may be pruned sooner
        pass
    return Basis(location.repository, location.active_index, stored.generation.name, manifest.get("commit"), digest)


def _prune_tables(folder: Path) -> None:
    """Keep the TABLES_KEPT most recently recorded tables: an answer whose table is pruned says
    its changes are not known. Each removal is whole; best-effort (another process may prune too)."""
    try:
        tables = sorted(folder.glob("*.json"), key=lambda path: path.stat().st_mtime_ns, reverse=True)
        for old in tables[TABLES_KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


@dataclass(frozen=True)
class SourceChanges:
    """Files added, modified and deleted in the source folder since an answer was made (those
    the caller's filters let through only), and which of them the live index already holds as
    they are now. `unknown` says why nothing can be told (the lists are then empty)."""

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    in_index: frozenset[str] = frozenset()  # changed paths the live index holds as they are now
    generation: str | None = None  # the index's live generation now
    unknown: str = ""

    @property
    def count(self) -> int:
        return len(self.added) + len(self.modified) + len(self.deleted)

    @property
    def refreshed(self) -> bool:
        """Every change is in the live index: a question asked now sees them."""
        return all(path in self.in_index for _, path in self.entries())

    def entries(self) -> list[tuple[str, str]]:
        """(added | modified | deleted, path), by path."""
        return sorted([(kind, path) for kind, paths in (("added", self.added), ("modified", self.modified),
                                                        ("deleted", self.deleted)) for path in paths],
                      key=lambda entry: entry[1])

    def listed(self, cap: int) -> tuple[list[tuple[str, str, bool]], int]:
        """The first `cap` entries with whether each is in the index, and how many more there are."""
        entries = self.entries()
        return [(kind, path, path in self.in_index) for kind, path in entries[:cap]], max(0, len(entries) - cap)

    def to_json(self) -> dict:
        return {**asdict(self), "in_index": sorted(self.in_index), "count": self.count, "refreshed": self.refreshed}


def changes_between(made_from: dict[str, str], now: dict[str, str], indexed: dict[str, str],
                    visible: Callable[[str], bool], generation: str | None) -> SourceChanges:
    """What changed from the file table `made_from` to the table `now` (the source folder),
    restricted to the `visible` paths, each marked in the index when `indexed` (the live
    index's table) has it as `now` does (a deletion: when the index no longer has it)."""
    added = tuple(sorted(p for p in now if p not in made_from and visible(p)))
    modified = tuple(sorted(p for p, sha in now.items() if made_from.get(p, sha) != sha and visible(p)))
    deleted = tuple(sorted(p for p in made_from if p not in now and visible(p)))
    in_index = frozenset(p for p in (*added, *modified, *deleted) if indexed.get(p) == now.get(p))
    return SourceChanges(added, modified, deleted, in_index, generation)


def path_visibility(settings: Settings, filters: RetrievalFilters) -> Callable[[str], bool]:
    """Whether a file path may be named to a caller under `filters`: an item of that path --
    with the access labels the index gives it, its language and any kind the filters allow --
    would pass them. A path the filters hide is never named, nor counted."""
    policy = acl_policy(settings.acl)
    kinds = _kinds_named(filters) or {"FILE"}

    def visible(path: str) -> bool:
        access = policy.for_path(path)
        language = settings.index.languages.get(PurePosixPath(path).suffix.lower(), "")
        return any(filters.allows(access["acl_tags"], access["classification_labels"], path, kind, language)
                   for kind in kinds)

    return visible


def _kinds_named(filters: RetrievalFilters) -> set[str]:
    return set(filters.kinds or ()) | {kind for also in filters.also for kind in _kinds_named(also)}


class SourceTables:
    """The file tables changes are told from, each read once while it holds: an answer's (by
    digest), the live index's (by generation) and the source folder's (walked again when its
    watcher saw changes, or after UNWATCHED_TREE_SECONDS when none follows it)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.data_dir = Path(settings.index.data_dir).expanduser().resolve()
        self._made_from: OrderedDict[str, dict[str, str]] = OrderedDict()  # the TABLES_CACHED read last
        self._indexed: dict[Path, tuple[str, dict[str, str], str]] = {}
        self._trees: dict[str, tuple[object, dict[str, str]]] = {}

    def changes_since(self, basis: Basis, filters: RetrievalFilters,
                      watched: Callable[[Path], object | None]) -> SourceChanges:
        """The changes since `basis` in the source folder of its index (as the live index names
        it); `watched(folder)`: its watcher's count of what it saw there, None when no watcher
        follows it."""
        location = store.IndexLocation(self.data_dir, basis.repository, basis.index)
        try:
            generation, indexed, source = self._live(location)
            if not source or not Path(source).is_dir():
                return SourceChanges(generation=generation,
                                     unknown=f"the source folder {source or '(none recorded)'} is not on this machine")
            root = Path(source).resolve()
            made_from = self._table(basis.files)
            now = self._tree(root, watched(root))
        except (RagstreamError, OSError, ValueError) as exc:
            return SourceChanges(unknown=f"cannot tell: {exc}")
        return changes_between(made_from, now, indexed, path_visibility(self.settings, filters), generation)

    def known_paths(self, location: store.IndexLocation, root: Path, watched: object | None) -> set[str]:
        """The paths the live index at `location` holds or its source folder `root` has to index
        (`watched`: as for `changes_since`): what a watcher's burst may name, never a file the
        index skips (a secret, an ignored one)."""
        _, indexed, _ = self._live(location)
        return set(indexed) | set(self._tree(root, watched))

    def _table(self, digest: str) -> dict[str, str]:
        if digest in self._made_from:
            self._made_from.move_to_end(digest)
            return self._made_from[digest]
        path = self.data_dir / SOURCES_DIR / f"{digest}.json"
        try:
            table = self._made_from[digest] = orjson.loads(path.read_bytes())
        except FileNotFoundError as exc:
            raise IndexLoadError("the file table the answer was made from is gone (older tables are pruned)",
                                 where=str(path)) from exc
        while len(self._made_from) > TABLES_CACHED:
            self._made_from.popitem(last=False)
        return table

    def _live(self, location: store.IndexLocation) -> tuple[str, dict[str, str], str]:
        """The live generation's name, file table and source folder."""
        current = store.current_generation(location)
        if current is None:
            raise IndexLoadError("the index has no live generation", where=str(location.index_dir))
        known = self._indexed.get(location.index_dir)
        if known is None or known[0] != current.name:
            stored = store.load_index(location)
            known = self._indexed[location.index_dir] = (stored.generation.name, stored.manifest["files"],
                                                         stored.manifest.get("source_root") or "")
        return known

    def _tree(self, root: Path, watched: object | None) -> dict[str, str]:
        version = watched if watched is not None else int(time.monotonic() // UNWATCHED_TREE_SECONDS)
        known = self._trees.get(str(root))
        if known is None or known[0] != version:
            walked = walk_repository(root, self.settings.index, with_text=False)
            known = self._trees[str(root)] = (version, {f.path: f.sha256 for f in walked.files})
        return known[1]
