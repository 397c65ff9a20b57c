"""The solver's tables: sets of abstract values by key, each key remembering who read it.

A whole-program fixpoint that re-evaluates every scope until nothing grows takes dozens of rounds
on a large repository, though late rounds change a handful of sets. Recording readers makes the
solver a worklist: when a set grows, exactly the scopes that read it run again, and in them
exactly the items (a binding, a call, a return, ...) that read it.
"""
from __future__ import annotations

from collections.abc import Iterable

EMPTY: frozenset = frozenset()
MRO_READER = "\0mro"  # reads made while computing class bases: a growth there re-runs everything


class Tracker:
    """Who is reading now, and which readers a growth has made stale.

    A reader is an item of a scope (an int: re-evaluated when what it read grows, and its scope
    runs again), MRO_READER, or a memoised lookup's key (a tuple, see `Memo`): its reads are made
    under its own name, so a growth drops the one result it touched and makes stale whoever used
    that result. `scope_of` names each item's scope."""

    def __init__(self, scope_of: list[str]) -> None:
        self.current: int | str | tuple | None = None
        self.scope_of = scope_of
        self.dirty: set[str] = set()  # scopes with a stale item since the pass began
        self.items: set[int] = set()  # items stale since they were last evaluated
        self.mro_stale = False
        self.memo: Memo | None = None

    def stale(self, readers: set) -> None:
        items = [r for r in readers if r.__class__ is int]
        self.items.update(items)
        scope_of = self.scope_of
        self.dirty.update([scope_of[item] for item in items])
        if MRO_READER in readers:
            self.mro_stale = True
        if self.memo is not None:
            for reader in [r for r in readers if r.__class__ is tuple]:
                self.stale(self.memo.drop(reader))


class Memo:
    """Results of derived lookups (an attribute through a class's MRO), by key, with the readers
    that used each. On a deep class hierarchy the same lookup runs hundreds of thousands of times
    between two growths of what it reads; kept here, it costs one dict lookup."""

    def __init__(self, tracker: Tracker):
        self.tracker = tracker
        self.results: dict[tuple, frozenset] = {}
        self.readers: dict[tuple, set] = {}
        tracker.memo = self

    def get(self, key: tuple, compute, *args) -> frozenset:
        """`compute(*args)`'s result for `key`, computed under `key` as the reader when not kept."""
        reader = self.tracker.current
        if reader is not None:  # `note_reader`, inline: this runs millions of times
            readers = self.readers.get(key)
            if readers is None:
                self.readers[key] = {reader}
            else:
                readers.add(reader)
        found = self.results.get(key)
        if found is None:
            self.tracker.current = key
            try:
                found = self.results[key] = frozenset(compute(*args))
            finally:
                self.tracker.current = reader
        return found

    def drop(self, key: tuple) -> set:
        """Forget `key`'s result; the readers that used it (now stale)."""
        self.results.pop(key, None)
        return self.readers.pop(key, set())

    def clear(self) -> set[int]:
        """Forget every result; the items that used any (now stale)."""
        items = {reader for readers in self.readers.values() for reader in readers if reader.__class__ is int}
        self.results.clear()
        self.readers.clear()
        return items


class Table:
    """Sets of values by key, capped at `cap` values each (past that a name is too dynamic to
    be worth more edges)."""

    __slots__ = ("values", "readers", "tracker", "cap")

    def __init__(self, tracker: Tracker, cap: int):
        self.values: dict = {}
        self.readers: dict = {}
        self.tracker = tracker
        self.cap = cap

    def get(self, key) -> set | frozenset:
        reader = self.tracker.current
        if reader is not None:  # `note_reader`, inline: this runs millions of times
            readers = self.readers.get(key)
            if readers is None:
                self.readers[key] = {reader}
            else:
                readers.add(reader)
        return self.values.get(key, EMPTY)

    def has(self, key) -> bool:
        return bool(self.get(key))

    def add(self, key, values: Iterable) -> None:
        current = self.values.get(key)
        if current is None:
            if not values:  # most evaluations find nothing new: no set for them
                return
            current = self.values[key] = set()
        if len(current) >= self.cap:
            return
        before = len(current)
        current.update(values)
        if len(current) > before and key in self.readers:
            self.tracker.stale(self.readers[key])
