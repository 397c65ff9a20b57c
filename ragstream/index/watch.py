"""Following a repository's files for `ragstream index --watch`: which files changed, once
changes have been quiet for a while. The re-index itself is the ordinary incremental build,
told which paths changed (`walk.walk_told`): so the watcher reports every path a walk could
list, leaving out only the data folder (the index's own writes) and what lies inside folders
the walk never enters by name (`index.vendored_dirs`: .git, node_modules, caches, virtualenvs)."""
from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from threading import Event

from watchfiles import Change, watch

LONGEST_WAIT = 10  # changes that never pause (a checkout of many files) are taken after this many quiet spells


class WalkedPaths:
    """A watchfiles filter: a change is reported unless it is in the data folder or inside a
    folder named in `vendored` (the folder itself is reported: a told walk then walks it all)."""

    def __init__(self, root: Path, data_dir: Path, vendored: Collection[str]):
        self.root, self.data_dir, self.vendored = root, data_dir, frozenset(vendored)

    def __call__(self, change: Change, path: str) -> bool:
        where = Path(path)
        if where == self.data_dir or self.data_dir in where.parents:
            return False
        try:
            folders = where.relative_to(self.root).parts[:-1]
        except ValueError:
            return True
        return not any(folder in self.vendored for folder in folders)


def changed_files(root: Path, data_dir: Path, quiet_ms: int, vendored: Collection[str] = (),
                  stop: Event | None = None) -> Iterator[list[str]]:
    """First `[]` as soon as the watcher is up (a build made after it misses no edit), then,
    after each burst of changes under `root` once files have been quiet for `quiet_ms`, the
    repository-relative paths that changed (added, modified or deleted), sorted: every change
    but those `WalkedPaths` leaves out. Ends when `stop` is set; Ctrl-C raises KeyboardInterrupt."""
    ready = False
    # A timeout yields an empty set: the first one says the watcher is up.
    for changes in watch(root, watch_filter=WalkedPaths(root, data_dir, vendored), debounce=quiet_ms * LONGEST_WAIT,
                         step=quiet_ms, rust_timeout=quiet_ms, yield_on_timeout=True, stop_event=stop):
        if changes or not ready:
            ready = True
            yield sorted({Path(path).relative_to(root).as_posix() for _, path in changes})
