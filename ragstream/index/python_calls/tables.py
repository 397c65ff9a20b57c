"""The solver's tables: sets of abstract values by key, each key remembering who read it.

A whole-program fixpoint that re-evaluates every scope until nothing grows takes dozens of rounds
on a large repository, though late rounds change a handful of sets. Recording readers makes the
solver a worklist: when a set grows, exactly the scopes that read it run again.
"""
from __future__ import annotations

from collections.abc import Iterable

EMPTY: frozenset = frozenset()
MRO_READER = "\0mro"  # reads made while computing class bases: a growth there re-runs everything


class Tracker:
    """Who is reading now, and which readers a growth has made stale."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.dirty: set[str] = set()
        self.mro_stale = False

    def stale(self, readers: set[str]) -> None:
        self.dirty |= readers
        if MRO_READER in readers:
            self.mro_stale = True


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
        if reader is not None:
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
            current = self.values[key] = set()
        if len(current) >= self.cap:
            return
        before = len(current)
        current.update(values)
        if len(current) > before and key in self.readers:
            self.tracker.stale(self.readers[key])
