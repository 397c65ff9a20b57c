"""Edits that only move lines: a comment, a blank line or a docstring written differently leaves
a file's parse result the same but for its line numbers and docstrings. `line_move` finds the
order-preserving map of old lines to new ones under which the old parse result becomes the new
one (the lines things are at: a call, a reference, an edge), and each node's new span and
docstring (a span's ends are no such lines: a comment inserted at the top moves every function
but not the module's first line, one appended after a function's last line ends the module later
but not the function); `shift_graph` applies them to a graph built before, in the places a Python
file's lines are kept there (its nodes' data, the edges from its nodes). `graph_reuse` says when that graph is the one a full build
would make.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
import networkx as nx

from ragstream.index.model import Edge, Node, ParsedFile, Reference

LineMap = dict[int, int]
_LINE = "line"  # a line something is at (a reference, a call, an edge)
# a node's own data that no linker reads: its span (the module's starts at 1 whatever moved), its docstring
_OWN = ("start_line", "end_line", "docstring")
_CALL_LINE = 3  # a Python flow fact's call is [callee, arguments, keywords, line, flag]
_NODE_DATA = frozenset(f.name for f in fields(Node)) | {"acl"}  # a parsed node's data in the graph, labelled
_OTHER_FIELDS = tuple(f.name for f in fields(ParsedFile) if f.name not in ("nodes", "edges", "references", "flow"))


@dataclass(frozen=True)
class FileMove:
    """How an edit moved a file's lines: old line -> new line, and node id -> its new span and
    docstring (`_OWN`)."""

    lines: LineMap
    own: dict[str, tuple]


def line_move(old: ParsedFile, new: ParsedFile) -> FileMove | None:
    """How `old` became `new` when the two differ in nothing but lines and their lines keep
    their order; else None."""
    if [getattr(old, name) for name in _OTHER_FIELDS] != [getattr(new, name) for name in _OTHER_FIELDS]:
        return None
    old_lines: list[int] = []
    new_lines: list[int] = []
    if _line_free(old, old_lines) != _line_free(new, new_lines):
        return None
    mapped: LineMap = {}
    for before, after in zip(old_lines, new_lines):
        if mapped.setdefault(before, after) != after:
            return None
    ordered = sorted(mapped.items())
    if any(a[1] >= b[1] for a, b in zip(ordered, ordered[1:])):
        return None  # lines swapped or merged: not a shift
    return FileMove(mapped, {node.id: tuple(getattr(node, name) for name in _OWN) for node in new.nodes})


def _line_free(parsed: ParsedFile, lines: list[int]) -> tuple:
    """A file's nodes, edges, references and flow facts without their lines, the lines
    appended to `lines` in the order met: a node's own data is left out (`FileMove.own`), and so is
    a flow scope's own line, which the call solve leaves out too (`python/calls/link.py`) and no
    linker reads. A line held deeper (in a node's attributes) is compared as it is."""
    nodes = [_without(node, _OWN) for node in parsed.nodes]
    edges = [(edge.source, edge.target, edge.type, _attrs_free(edge.attrs, lines)) for edge in parsed.edges]
    references = []
    for ref in parsed.references:
        lines.append(ref.line)
        references.append((_without(ref, (_LINE, "attrs")), _attrs_free(ref.attrs, lines)))
    flow = [{k: [_call_free(call, lines) for call in v] if k == "calls" else v for k, v in scope.items() if k != _LINE}
            for scope in parsed.flow]
    return nodes, edges, references, flow


def _without(value: Node | Reference | Edge, left_out: tuple[str, ...]) -> tuple:
    return tuple(v for k, v in vars(value).items() if k not in left_out)


def _attrs_free(attrs: dict, lines: list[int]) -> dict:
    if type(attrs.get(_LINE)) is not int:
        return attrs
    lines.append(attrs[_LINE])
    return {**attrs, _LINE: None}


def _call_free(call: list, lines: list[int]) -> list:
    lines.append(call[_CALL_LINE])
    return [*call[:_CALL_LINE], None, *call[_CALL_LINE + 1:]]


def shift_graph(graph: nx.MultiDiGraph, moves: dict[str, FileMove]) -> nx.MultiDiGraph | None:
    """A copy of `graph` (node, successor and predecessor order kept; each node's data its own,
    as access labels are written there after; the edge tables the move leaves as they were
    shared, as nothing changes an edge after linking) with the lines of the files in `moves`
    (path -> how its lines moved) moved: their nodes' spans and docstrings and the lines of the edges from
    them. None when such a line or node is not in its file's move (it was not read from the
    file's parse result, so where it moves is not known)."""
    copy: nx.MultiDiGraph = nx.MultiDiGraph()
    copy.graph.update(graph.graph)
    old_nodes, nodes = graph._node, copy._node  # type: ignore[attr-defined]
    for node, data in old_nodes.items():
        move = moves.get(data.get("path") or "")
        shifted = data.copy() if move is None else _moved_node(node, data, move)
        if shifted is None:
            return None
        nodes[node] = shifted
    edges: dict[int, dict] = {}  # id of a moved edge's data -> its copy: one dict, seen from both ends
    moved_to: set[str] = set()  # the targets of moved edges: their predecessor tables change
    for source, targets in graph._succ.items():  # type: ignore[attr-defined]
        move = moves.get(old_nodes[source].get("path") or "")
        if move is None:
            copy._succ[source] = targets  # type: ignore[attr-defined]
            continue
        out: dict[str, dict] = {}
        moved_to.update(targets)
        for target, keyed in targets.items():
            out[target] = {}
            for key, data in keyed.items():
                shifted = _moved_edge(data, move.lines)
                if shifted is None:
                    return None
                out[target][key] = edges[id(data)] = shifted
        copy._succ[source] = out  # type: ignore[attr-defined]
    for target, sources in graph._pred.items():  # type: ignore[attr-defined]
        copy._pred[target] = sources if target not in moved_to else {  # type: ignore[attr-defined]
            source: {key: edges.get(id(data), data) for key, data in keyed.items()} for source, keyed in sources.items()}
    return copy


def _moved_node(node: str, data: dict, move: FileMove) -> dict | None:
    """A node's data with its new span and docstring (all else of it is as it was: `line_move`
    compared it); None for data a linker added to (what it added is not known to stay)."""
    own = move.own.get(node)
    if own is None or not data.keys() <= _NODE_DATA:
        return None
    return {k: own[_OWN.index(k)] if k in _OWN else v for k, v in data.items()}


def _moved_edge(data: dict, moved: LineMap) -> dict | None:
    """An edge's data with its line mapped; None when the line is not in `moved`."""
    line = data.get(_LINE)
    if line is None:
        return data.copy()
    return {**data, _LINE: moved[line]} if line in moved else None
