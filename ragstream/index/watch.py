"""Following a repository's files for `ragstream index --watch`: which files changed, once
changes have been quiet for a while. The re-index itself is the ordinary incremental build."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from threading import Event

from watchfiles import DefaultFilter, watch

LONGEST_WAIT = 10  # changes that never pause (a checkout of many files) are taken after this many quiet spells


def changed_files(root: Path, data_dir: Path, quiet_ms: int, stop: Event | None = None) -> Iterator[list[str]]:
    """First `[]` as soon as the watcher is up (a build made after it misses no edit), then,
    after each burst of changes under `root` once files have been quiet for `quiet_ms`, the
    repository-relative paths that changed (added, modified or deleted), sorted. Version-control
    folders, caches and virtualenvs (watchfiles' default filter) and the data folder (the index's
    own writes) are not watched. Ends when `stop` is set; Ctrl-C raises KeyboardInterrupt."""
    ignored = DefaultFilter(ignore_paths=[str(data_dir)])
    ready = False
    # A timeout yields an empty set: the first one says the watcher is up.
    for changes in watch(root, watch_filter=ignored, debounce=quiet_ms * LONGEST_WAIT, step=quiet_ms,
                         rust_timeout=quiet_ms, yield_on_timeout=True, stop_event=stop):
        if changes or not ready:
            ready = True
            yield sorted({Path(path).relative_to(root).as_posix() for _, path in changes})
