"""No library: the stdlib `ast` pass alone, so its share of time and memory can be subtracted."""
from __future__ import annotations

from sources import SourceIndex

Edge = tuple[str, str]


def edges(index: SourceIndex, progress=None) -> set[Edge]:
    return set()
