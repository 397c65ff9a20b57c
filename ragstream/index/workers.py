"""Independent jobs of a build (a file's parse, a file's read and redaction) spread over the cores
by forked worker processes, where that is safe and pays.

Only `fork` is used: a forked worker starts with this process's modules already imported, where
`spawn` and `forkserver` start a fresh interpreter that imports the main module again (inside the
workbench's Streamlit server, Streamlit's own: docs/BENCHMARKS.md). A fork copies the locks other
threads hold, so a process that runs another Python thread (a server, a warm-up) does the jobs
itself, one after the other.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

J = TypeVar("J")
R = TypeVar("R")


def worker_count(jobs: int, per_worker: int) -> int:
    """How many workers `jobs` jobs are worth (1: do them here): one per core, each with at
    least `per_worker` jobs, below which a worker's start costs more than it does."""
    if not can_fork():
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), jobs // per_worker))


def can_fork() -> bool:
    """Whether this process may fork a worker: `fork` is there, and no other thread runs."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def spread(work: Callable[[J], R], jobs: list[J], per_worker: int,
           meanwhile: Callable[[], None] | None = None) -> Iterator[R]:
    """`work(job)` of each job, in order, as each ends. `work` must be a module-level function
    (or a partial of one) that reads nothing but its job and what the process held before the
    fork. While workers do the jobs, this process runs `meanwhile` on a thread started after the
    fork (ended when this ends; its errors are left to whoever needs what it loads); with no
    workers, `meanwhile` is not run."""
    workers = worker_count(len(jobs), per_worker)
    if workers < 2:
        yield from map(work, jobs)
        return
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        helper = threading.Thread(target=_quietly, args=(meanwhile,), daemon=True) if meanwhile else None
        if helper:
            helper.start()
        yield from pool.imap(work, jobs, chunksize=4)
        if helper:
            helper.join()


def _quietly(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:  # noqa: BLE001 - the step that needs what failed to load says why
        pass
