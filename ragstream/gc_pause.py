"""Pause Python's cyclic garbage collector while a step builds millions of small objects.

Parse results, flow facts, the graph and the chunk list are trees and tables: nothing they
make is garbage until the step ends, yet every few hundred allocations the collector walks the
young objects, and every so often all of them -- a quarter of a keyword-ready build's time
(docs/BENCHMARKS.md). Reference counting still frees what is dropped; cycles made meanwhile
wait for the collector's next full pass after the pause. Safe to nest and to use from several
threads: the collector is on again when the last pause ends.

The objects made during a pause join the oldest generation when it ends, without a pass over
them: left young, the first collection after the pause would walk every one of them (0.3 CPU s
after a cold build of a 65k-line repository), though most are kept or freed by reference
counting when the step returns.
"""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.freeze()  # every tracked object to the permanent generation, unvisited ...
                gc.unfreeze()  # ... and from there to the oldest, where a full pass meets them
                gc.enable()
