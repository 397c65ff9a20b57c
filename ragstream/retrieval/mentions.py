"""Code the question names: dotted names, file paths and identifiers matched against the index's
symbols -- the strongest signal a long issue text (tracebacks, `module.function` references)
carries, and one that neither BM25 (which dilutes it among hundreds of prose words) nor a
general-purpose embedding model (which truncates it) keeps.

Python, C# and SQL symbols are matched (SQL names case-insensitively, as SQL reads them). A row
scores its best symbol match -- a dotted name in the question that ends its qualified
symbol (`temperature.fuentes` -> `pvlib.temperature.fuentes`, points per segment matched), or
a code-like identifier (`snake_case`, `CamelCase`, `called()`, `` `quoted` ``) equal to its own
name, damped by the number of symbols sharing that name, or a traceback frame naming its file
and its function -- plus points when the question names its file, by path or by module (in `a.b`, module
`a` only if it defines, imports or holds `b`), or its package (shared among the package's
modules). Hybrid search adds the score, as a strength in [0, 1], to the fused score (a
full-strength mention counts like a first place in a ranking).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ragstream.index.chunk_table import AccessColumns, access_columns
from ragstream.index.mention_table import MentionTable, python_module
from ragstream.index.model import Chunk
from ragstream.retrieval.symptoms import SYMPTOM_SUFFIXES

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PATH = re.compile(r"[\w.-]*(?:/[\w.-]+)*\.py\b")
_IDENTIFIER = re.compile(r"`([A-Za-z_]\w*)`|([A-Za-z_]\w*)(\()?")
_TRACEBACK_FRAME = re.compile(r'File "([^"]+)", line \d+, in ([A-Za-z_]\w*)')
_CODE_LIKE = re.compile(r"_\w|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
SYMBOL_POINTS = 2.0  # a dotted match of n segments scores SYMBOL_POINTS * n
IDENTIFIER_POINTS = 3.0  # a bare identifier naming one symbol; a name n rows share: 1/sqrt(n) of it
FILE_POINTS = 2.5  # every row of a file the question names by path or module (added to the above)
FRAME_POINTS = 2 * SYMBOL_POINTS  # a traceback frame names a file and its function: as sure as `module.function`
MAX_DOTTED_SEGMENTS = 6  # longer chains are cut: their sub-chains are what match
FULL_STRENGTH = 2 * SYMBOL_POINTS  # a two-segment dotted match is as sure as a mention gets
# A builtin called in a question runs the data-model method of its argument's class: `str(e)`
# that prints the wrong thing is a bug in some `__str__`.
DISPATCHED = {name: f"__{name}__" for name in (
    "str", "repr", "len", "hash", "bool", "iter", "next", "reversed", "abs", "round", "int", "float",
    "complex", "bytes", "format", "dir", "divmod", "pow")}


class SymbolTable:
    """The index's symbols (`index/mention_table.MentionTable`: made at build time, or from the
    chunks for an index built before it) with the lookups the scores need, each made on first use."""

    def __init__(self, table: MentionTable, columns: AccessColumns):
        self.table = table
        self.paths, self._path_ids = columns.paths, columns.path_ids
        self.segments = table.segments
        self.members = table.members
        self._rows_of_path: dict[str, list[int]] = {}
        self._path_numbers = {path: i for i, path in enumerate(self.paths)}
        self.module_of_path: dict[str, tuple[str, ...]] = {}
        self.module_paths: dict[tuple[str, ...], list[str]] = defaultdict(list)  # last 1 and 2 module segments -> paths
        self.package_modules: dict[tuple[str, ...], list[str]] = defaultdict(list)  # package -> its own modules' paths
        for path in self.paths:
            if (module := python_module(path)) is None:
                continue
            self.module_of_path[path] = module
            if not path.endswith("__init__.py"):
                self.package_modules[module[:-1]].append(path)
            for n in (1, 2):
                if len(module) >= n:
                    self.module_paths[module[-n:]].append(path)

    @classmethod
    def build(cls, chunks: Sequence[Chunk], table: MentionTable | None = None) -> "SymbolTable":
        """The table of the chunks: `table` when the build wrote it, else made from them."""
        return cls(MentionTable.build(chunks) if table is None else table, access_columns(chunks))

    def by_tail(self, tail: tuple[str, ...]) -> list[int]:
        """The rows whose symbol's last one or two segments are `tail`, in row order."""
        return self.table.rows_ending(tail).tolist()

    def rows_of_path(self, path: str) -> list[int]:
        rows = self._rows_of_path.get(path)
        if rows is None:
            rows = self._rows_of_path[path] = np.flatnonzero(
                self._path_ids == self._path_numbers[path]).tolist()
        return rows

    def scores(self, query: str, visible: np.ndarray) -> dict[int, float]:
        """Mention score of each visible row the question names (rows it does not name: absent):
        its best symbol match plus its file's match."""
        symbol: dict[int, float] = {}
        named_file: dict[int, float] = {}

        def give(into: dict[int, float], rows, points: float) -> None:
            for row in rows:
                if visible[row] and points > into.get(row, 0.0):
                    into[row] = points

        for chain in _chains(query):
            for sub, following in _runs(chain):
                if len(sub) >= 2:
                    give(symbol, [r for key in _cases(sub) for r in self.by_tail(key[-2:])
                                  if _ends_with(self.segments[r], key)], SYMBOL_POINTS * len(sub))
                for path in self.module_paths.get(sub[-2:], ()):
                    # `a.b` names module `a` only if `a` holds a `b` (`printing.pretty` names the
                    # package sympy/printing, not sympy/interactive/printing.py)
                    if _ends_with(self.module_of_path[path], sub) and (
                            following is None or following in self.members.get(path, ())):
                        give(named_file, self.rows_of_path(path), FILE_POINTS)
                        # a package names its own modules too, sharing the points among them
                        modules = self._package_modules(path)
                        for module in modules:
                            give(named_file, self.rows_of_path(module), FILE_POINTS / len(modules))
        for path in self._named_paths(query):
            give(named_file, self.rows_of_path(path), FILE_POINTS)
        for path, function in _frames(query):
            for indexed in self._matching_paths({path}):
                if "/" in path:  # a bare file name names no file (paths of two or more parts do)
                    give(named_file, self.rows_of_path(indexed), FILE_POINTS)
                give(symbol, [r for r in self.rows_of_path(indexed) if self.segments[r][-1:] == (function,)],
                     FRAME_POINTS)
        for name in code_identifiers(query):
            rows = [r for key in _cases((name,)) for r in self.by_tail(key)]
            if rows:  # a shared name says less about each symbol; sqrt: two namesakes are still close calls
                give(symbol, rows, IDENTIFIER_POINTS / len(rows) ** 0.5)
        return {row: symbol.get(row, 0.0) + named_file.get(row, 0.0) for row in symbol.keys() | named_file.keys()}

    def _package_modules(self, path: str) -> list[str]:
        """The modules directly in the package whose `__init__.py` this is (else none)."""
        return self.package_modules.get(self.module_of_path[path], []) if path.endswith("__init__.py") else []

    def _named_paths(self, query: str) -> list[str]:
        """Indexed files the question names by a path of two or more parts: relative
        (`io/ascii/qdp.py`) or absolute, as in a traceback (`/site-packages/astropy/io/ascii/qdp.py`)."""
        named = {m.group(0).lstrip("./") for m in _PATH.finditer(query)}
        return self._matching_paths({n for n in named if "/" in n})

    def _matching_paths(self, named: set[str]) -> list[str]:
        """Indexed files that share a tail with a named path: two parts at least, or all of
        the shorter path (an installed `site-packages/pkg/mod.py` is the repository's `src/pkg/mod.py`)."""
        named_parts = [tuple(n.split("/")) for n in named]
        return [p for p in self.paths
                if any(_same_file(tuple(p.split("/")), n) for n in named_parts)]


def strength(score: float) -> float:
    """A mention score as a strength in [0, 1]."""
    return min(score / FULL_STRENGTH, 1.0)


def _cases(segments: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The segments as written and, for SQL symbols, lower-cased."""
    lowered = tuple(part.lower() for part in segments)
    return (segments,) if lowered == segments else (segments, lowered)


def code_identifiers(query: str) -> list[str]:
    """Identifiers written as code: quoted in backticks, called, snake_case or camelCase, or
    named by a traceback line (`File "x.py", line 3, in name`), and the data-model method a
    called builtin runs (`str(e)`: `__str__`); exception types left out."""
    found = [function for _, function in _frames(query)]
    for match in _IDENTIFIER.finditer(query):
        quoted, word, call = match.groups()
        name = quoted or word
        if quoted or call or _CODE_LIKE.search(name):
            found.append(name)
        if call and name in DISPATCHED:
            found.append(DISPATCHED[name])
    return [name for name in dict.fromkeys(found) if not name.endswith(SYMPTOM_SUFFIXES)]


def _frames(query: str) -> list[tuple[str, str]]:
    """(file path, function) of each traceback line, `/`-separated (a Windows traceback too)."""
    return [(path.replace("\\", "/").lstrip("./"), function)
            for path, function in dict.fromkeys(_TRACEBACK_FRAME.findall(query))]


def _chains(query: str) -> list[tuple[str, ...]]:
    """Dotted names; a file name (`app.py`) is not one (paths are matched as paths), and a
    name ending in an exception type is a symptom, not a location."""
    chains = (tuple(m.group(0).split("."))[-MAX_DOTTED_SEGMENTS:] for m in _DOTTED.finditer(query))
    return list(dict.fromkeys(c for c in chains if c[-1] != "py" and not c[-1].endswith(SYMPTOM_SUFFIXES)))


def _runs(chain: tuple[str, ...]) -> list[tuple[tuple[str, ...], str | None]]:
    """Contiguous runs of a dotted chain that may name a symbol or a module, each with the
    segment that follows it (None at the end): every run of two or more segments (`a.b.c.attr`
    names `a.b.c` too), and a single segment followed by another (`temperature` in
    `temperature.fuentes` is a module, or a class)."""
    return [(chain[i:j], chain[j] if j < len(chain) else None)
            for i in range(len(chain)) for j in range(i + 1, len(chain) + 1) if j - i >= 2 or j < len(chain)]


def _same_file(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two paths end alike in at least two parts, or in all of the shorter one."""
    shared = min(len(a), len(b), 2)
    return a[-shared:] == b[-shared:]


def _ends_with(parts: tuple[str, ...], tail: tuple[str, ...]) -> bool:
    return len(parts) >= len(tail) and parts[-len(tail):] == tail
