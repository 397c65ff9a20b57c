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
from dataclasses import dataclass

import numpy as np

from ragstream.retrieval.symptoms import SYMPTOM_SUFFIXES
from ragstream.index.model import Chunk

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PATH = re.compile(r"[\w.-]*(?:/[\w.-]+)*\.py\b")
_IDENTIFIER = re.compile(r"`([A-Za-z_]\w*)`|([A-Za-z_]\w*)(\()?")
_TRACEBACK_FRAME = re.compile(r'File "([^"]+)", line \d+, in ([A-Za-z_]\w*)')
_CODE_LIKE = re.compile(r"_\w|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
# Names a module's own text binds at its top level: `from x import a, b as c`, `import x.y`, `NAME = ...`
_IMPORTED = re.compile(r"^from\s+[\w.]+\s+import\s+(\([^)]*\)|[^\n]+)|^import\s+([^\n]+)", re.MULTILINE)
_ASSIGNED = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
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


@dataclass
class SymbolTable:
    """Per row: the segments of its qualified symbol and of its file's module; lookups by the
    last one or two segments (built once per loaded index)."""

    segments: list[tuple[str, ...]]
    by_tail: dict[tuple[str, ...], list[int]]  # last 1 and last 2 symbol segments -> rows
    rows_of_path: dict[str, list[int]]
    module_paths: dict[tuple[str, ...], list[str]]  # last 1 and 2 module segments -> paths
    module_of_path: dict[str, tuple[str, ...]]
    package_modules: dict[tuple[str, ...], list[str]]  # package -> the paths of its own modules
    members: dict[str, set[str]]  # path -> the names its module defines, imports or holds as submodules

    @classmethod
    def build(cls, chunks: list[Chunk]) -> "SymbolTable":
        segments, by_tail = [], defaultdict(list)
        rows_of_path, module_paths, module_of_path = defaultdict(list), defaultdict(list), {}
        package_modules, members, package_members = defaultdict(list), defaultdict(set), defaultdict(set)
        for row, chunk in enumerate(chunks):
            parts = _symbol_segments(chunk)
            segments.append(parts)
            for n in (1, 2):
                if len(parts) >= n:
                    by_tail[parts[-n:]].append(row)
            rows_of_path[chunk.path].append(row)
            if chunk.path not in module_of_path and chunk.path.endswith(".py"):
                module = tuple(p for p in chunk.path[:-3].split("/") if p and p != "__init__")
                module_of_path[chunk.path] = module
                if not chunk.path.endswith("__init__.py"):
                    package_modules[module[:-1]].append(chunk.path)
                for n in range(1, len(module)):
                    package_members[module[:n]].add(module[n])
                for n in (1, 2):
                    if len(module) >= n:
                        module_paths[module[-n:]].append(chunk.path)
            if parts and chunk.path in module_of_path:
                depth = _module_depth(parts, module_of_path[chunk.path])
                if len(parts) > depth:
                    members[chunk.path].add(parts[depth])
                elif chunk.kind == "MODULE":
                    members[chunk.path].update(_bound_names(chunk.text))
        for path, module in module_of_path.items():
            if path.endswith("__init__.py"):
                members[path] |= package_members[module]
        return cls(segments, dict(by_tail), dict(rows_of_path), dict(module_paths), module_of_path,
                   dict(package_modules), dict(members))

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
                    give(symbol, [r for key in _cases(sub) for r in self.by_tail.get(key[-2:], ())
                                  if _ends_with(self.segments[r], key)], SYMBOL_POINTS * len(sub))
                for path in self.module_paths.get(sub[-2:], ()):
                    # `a.b` names module `a` only if `a` holds a `b` (`printing.pretty` names the
                    # package sympy/printing, not sympy/interactive/printing.py)
                    if _ends_with(self.module_of_path[path], sub) and (
                            following is None or following in self.members.get(path, ())):
                        give(named_file, self.rows_of_path[path], FILE_POINTS)
                        # a package names its own modules too, sharing the points among them
                        modules = self._package_modules(path)
                        for module in modules:
                            give(named_file, self.rows_of_path[module], FILE_POINTS / len(modules))
        for path in self._named_paths(query):
            give(named_file, self.rows_of_path[path], FILE_POINTS)
        for path, function in _frames(query):
            for indexed in self._matching_paths({path}):
                if "/" in path:  # a bare file name names no file (paths of two or more parts do)
                    give(named_file, self.rows_of_path[indexed], FILE_POINTS)
                give(symbol, [r for r in self.rows_of_path[indexed] if self.segments[r][-1:] == (function,)],
                     FRAME_POINTS)
        for name in code_identifiers(query):
            rows = [r for key in _cases((name,)) for r in self.by_tail.get(key, ())]
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
        return [p for p in self.rows_of_path
                if any(_same_file(tuple(p.split("/")), n) for n in named_parts)]


def strength(score: float) -> float:
    """A mention score as a strength in [0, 1]."""
    return min(score / FULL_STRENGTH, 1.0)


def _symbol_segments(chunk: Chunk) -> tuple[str, ...]:
    """The segments of a Python, C# or SQL chunk's qualified symbol (SQL's lower-cased: its names
    ignore case); none for file-level chunks, whose symbol is their path."""
    language = chunk.metadata.get("language")
    if chunk.kind == "FILE" or language not in ("python", "csharp", "sql"):
        return ()
    return tuple((chunk.symbol.lower() if language == "sql" else chunk.symbol).split("."))


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


def _module_depth(parts: tuple[str, ...], module: tuple[str, ...]) -> int:
    """How many leading segments of a symbol name its module (the module's path may carry a
    layout folder, `src/`, that the symbol does not)."""
    return next((k for k in range(min(len(parts), len(module)), 0, -1) if parts[:k] == module[-k:]), 0)


def _bound_names(module_text: str) -> set[str]:
    """Names a module's top level imports or assigns (its defs and classes are symbols)."""
    names = set(_ASSIGNED.findall(module_text))
    for from_list, imports in _IMPORTED.findall(module_text):
        for item in (from_list or imports).strip("()").split(","):
            words = item.split()
            if words:  # `a as b` binds b; `import a.b` binds a
                names.add(words[-1] if len(words) == 3 and words[1] == "as" else words[0].split(".")[0])
    return names


def _same_file(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two paths end alike in at least two parts, or in all of the shorter one."""
    shared = min(len(a), len(b), 2)
    return a[-shared:] == b[-shared:]


def _ends_with(parts: tuple[str, ...], tail: tuple[str, ...]) -> bool:
    return len(parts) >= len(tail) and parts[-len(tail):] == tail
