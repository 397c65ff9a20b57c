"""The symbols of an index's chunks as the mentions search (`retrieval/mentions.py`) looks them
up: made at build time and written beside the chunks, so that a cold process reads arrays
rather than walking every chunk's symbol.

Per row: its qualified symbol's segments, and the number of its last and second-last segment in
a vocabulary (a lookup by the last one or two segments is then one comparison over an array; the
rows of a file are the chunk table's, `chunk_table.AccessColumns`). Per Python file: the names its module defines, imports or holds as submodules.
"""
from __future__ import annotations

import io
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import orjson

from ragstream.index.model import Chunk
from ragstream.index.store import write_bytes

FOLDER = "mentions"  # inside a generation; absent in indexes built before it (the table is made from the chunks then)
_META = "meta.json"
_ARRAYS = ("last", "second")
# Names a module's own text binds at its top level: `from x import a, b as c`, `import x.y`, `NAME = ...`
_IMPORTED = re.compile(r"^from\s+[\w.]+\s+import\s+(\([^)]*\)|[^\n]+)|^import\s+([^\n]+)", re.MULTILINE)
_ASSIGNED = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", re.MULTILINE)


@dataclass
class MentionTable:
    segments: Sequence[tuple[str, ...]]  # per row: the segments of its qualified symbol
    vocabulary: list[str]  # every last and second-last segment, sorted
    last: np.ndarray  # per row: the vocabulary number of its last segment, -1 when it has none
    second: np.ndarray  # per row: of its second-last segment, -1 when it has fewer than two
    members: dict[str, list[str]]  # Python path -> the names its module defines, imports or holds as submodules

    @classmethod
    def build(cls, chunks: Sequence[Chunk]) -> "MentionTable":
        segments = [symbol_segments(chunk) for chunk in chunks]
        vocabulary = sorted({part for parts in segments for part in parts[-2:]})  # sorted: found by bisection
        number = {part: i for i, part in enumerate(vocabulary)}
        last = np.array([number[parts[-1]] if parts else -1 for parts in segments], dtype=np.int32)
        second = np.array([number[parts[-2]] if len(parts) >= 2 else -1 for parts in segments], dtype=np.int32)
        return cls(segments, vocabulary, last, second, _members(chunks, segments))

    def rows_ending(self, tail: tuple[str, ...]) -> np.ndarray:
        """The rows whose symbol's last one or two segments are `tail`, in row order."""
        numbers = [bisect_left(self.vocabulary, part) for part in tail]
        if any(n == len(self.vocabulary) or self.vocabulary[n] != part for n, part in zip(numbers, tail)):
            return np.empty(0, dtype=np.int64)
        found = self.last == numbers[-1]
        if len(numbers) == 2:
            found &= self.second == numbers[0]
        return np.flatnonzero(found)

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name in _ARRAYS:
            buffer = io.BytesIO()
            np.save(buffer, getattr(self, name), allow_pickle=False)
            write_bytes(folder / f"{name}.npy", buffer.getvalue())
        write_bytes(folder / _META, orjson.dumps({
            "segments": [".".join(parts) if parts else None for parts in self.segments],
            "vocabulary": self.vocabulary, "members": self.members}))

    @classmethod
    def read(cls, folder: Path) -> "MentionTable | None":
        """The table written in `folder`; None when there is none (an index built before it)."""
        if not (folder / _META).is_file():
            return None
        meta = orjson.loads((folder / _META).read_bytes())
        arrays = {name: np.load(folder / f"{name}.npy", allow_pickle=False) for name in _ARRAYS}
        return cls(_Segments(meta["segments"]), meta["vocabulary"], arrays["last"], arrays["second"],
                   meta["members"])


class _Segments(Sequence):
    """Rows' segments as written (`a.b.c`, None for none), split when a row is read."""

    def __init__(self, joined: list[str | None]):
        self._joined = joined

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self[r] for r in range(*row.indices(len(self)))]
        text = self._joined[row]
        return () if text is None else tuple(text.split("."))

    def __len__(self) -> int:
        return len(self._joined)


def symbol_segments(chunk: Chunk) -> tuple[str, ...]:
    """The segments of a Python, C# or SQL chunk's qualified symbol (SQL's lower-cased: its names
    ignore case); none for file-level chunks, whose symbol is their path."""
    language = chunk.metadata.get("language")
    if chunk.kind == "FILE" or language not in ("python", "csharp", "sql"):
        return ()
    return tuple((chunk.symbol.lower() if language == "sql" else chunk.symbol).split("."))


def python_module(path: str) -> tuple[str, ...] | None:
    """The module a `.py` path holds (`pkg/mod.py` -> pkg.mod, `pkg/__init__.py` -> pkg); None for others."""
    if not path.endswith(".py"):
        return None
    return tuple(p for p in path[:-3].split("/") if p and p != "__init__")


def _members(chunks: Sequence[Chunk], segments: Sequence[tuple[str, ...]]) -> dict[str, list[str]]:
    """Python path -> the names its module defines, imports or (a package) holds as submodules."""
    module_of_path: dict[str, tuple[str, ...]] = {}
    members: dict[str, set[str]] = defaultdict(set)
    package_members: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for chunk, parts in zip(chunks, segments):
        if chunk.path not in module_of_path and (module := python_module(chunk.path)) is not None:
            module_of_path[chunk.path] = module
            for n in range(1, len(module)):
                package_members[module[:n]].add(module[n])
        if parts and chunk.path in module_of_path:
            depth = _module_depth(parts, module_of_path[chunk.path])
            if len(parts) > depth:
                members[chunk.path].add(parts[depth])
            elif chunk.kind == "MODULE":
                members[chunk.path].update(_bound_names(chunk.text))
    for path, module in module_of_path.items():
        if path.endswith("__init__.py"):
            members[path] |= package_members[module]
    return {path: sorted(names) for path, names in members.items()}


def _module_depth(parts: tuple[str, ...], module: tuple[str, ...]) -> int:
    """How many leading segments of a symbol name its module (the module's path may carry a
    layout folder, `src/`, that the symbol does not)."""
    return next((k for k in range(min(len(parts), len(module)), 0, -1) if parts[:k] == module[-k:]), 0)


@lru_cache(maxsize=1 << 14)  # a re-index finds most module texts as they were
def _bound_names(module_text: str) -> frozenset[str]:
    """Names a module's top level imports or assigns (its defs and classes are symbols)."""
    names = set(_ASSIGNED.findall(module_text))
    for from_list, imports in _IMPORTED.findall(module_text):
        for item in (from_list or imports).strip("()").split(","):
            words = item.split()
            if words:  # `a as b` binds b; `import a.b` binds a
                names.add(words[-1] if len(words) == 3 and words[1] == "as" else words[0].split(".")[0])
    return frozenset(names)
