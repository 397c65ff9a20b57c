"""A result kept in an index generation for the next build to reuse: one file holding a key and
the bytes made under it. The next build reads the live generation's file; a hit is linked into
the new generation, a miss is written there, so each generation holds the one result it was
built with and nothing accumulates."""
from __future__ import annotations

import os
from pathlib import Path

from ragstream.index import store


class GenerationMemo:
    """`get` / `put` of one keyed result, read from `previous` (the live generation, or None),
    kept in `generation` (the one being staged)."""

    def __init__(self, name: str, previous: Path | None, generation: Path):
        self._old = previous / name if previous else None
        self._new = generation / name
        self.hit = False  # whether `get` found the result

    def get(self, key: str) -> bytes | None:
        if self._old is None or not self._old.is_file():
            return None
        stored_key, _, value = self._old.read_bytes().partition(b"\n")
        if stored_key.decode() != key:
            return None
        os.link(self._old, self._new)  # files of a generation never change: sharing them is safe
        self.hit = True
        return value

    def carry(self) -> None:
        """Keep the previous generation's result in the new one, unread: the caller knows it
        was made from what the new one is made from."""
        if self._old is not None and self._old.is_file():
            os.link(self._old, self._new)
            self.hit = True

    def put(self, key: str, value: bytes) -> None:
        store.write_bytes(self._new, key.encode() + b"\n" + value)
