"""The previous build's graph, moved, when an edit only moved lines of Python files or rewrote
their docstrings (`index --watch`): linking every file again was 40% of such a re-index
(docs/BENCHMARKS.md).

The graph is a pure function of the parse results (`graph_build.build_graph`), and the linkers
of Python's references and calls read a line only to label an edge from the line's own file:
the solve reads none (`python/calls/link.py`), an edge made twice keeps its first line, and
lines of one file met in order stay in order under a map that keeps it; the C# and SQL
linkers that read a node's span (EF entities, request filters, schema evolution) read only their
own languages' nodes; no linker reads a docstring. So when every file's parse result is the previous build's, or, for Python files,
equal to it once its lines are mapped and its docstrings left out (`line_shift.line_move`), the
graph a full build makes is the previous one with those files' lines moved -- node spans and
docstrings, the edges from their nodes -- and resolution counts unchanged. Anything else (a file
added, removed or reordered, a flow fact, a name, a signature, another language, guesses
switched) links the whole graph again.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from ragstream.index.graph_build import ResolutionStats
from ragstream.index.line_shift import FileMove, line_move, shift_graph
from ragstream.index.store import ParseRecord


@dataclass(frozen=True)
class BuiltGraph:
    """What a build linked: each file's parse record in the order linked, whether Python calls
    were guessed, the graph (access labels are added to it after) and the resolution counts."""

    records: dict[str, ParseRecord]
    python_guesses: bool
    graph: nx.MultiDiGraph
    stats: ResolutionStats


def moved_graph(before: BuiltGraph | None, records: dict[str, ParseRecord],
                python_guesses: bool) -> tuple[nx.MultiDiGraph, ResolutionStats] | None:
    """The graph and counts a full build of `records` makes, taken from `before` when the edit
    only moved lines of Python files (the module docstring says why that is exact); else None."""
    if before is None or before.python_guesses != python_guesses or list(before.records) != list(records):
        return None
    moves: dict[str, FileMove] = {}
    for path, record in records.items():
        old = before.records[path]
        if old.key == record.key:
            continue
        if old.parsed.language != "python" or record.parsed.language != "python":
            return None
        found = line_move(old.parsed, record.parsed)
        if found is None:
            return None
        moves[path] = found
    graph = shift_graph(before.graph, moves)
    if graph is None:
        return None
    return graph, ResolutionStats(**{name: Counter(counts) for name, counts in vars(before.stats).items()})
