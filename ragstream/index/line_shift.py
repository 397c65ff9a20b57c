"""Edits that only move lines: a comment or a blank line inserted or removed leaves a file's
parse result the same but for its line numbers. `line_move` finds the order-preserving map of
old lines to new ones under which the old parse result becomes the new one (the lines things are
at: a call, a reference), and each node's new span (a span's ends are no such lines: a comment
inserted at the top moves every function but not the module's first line, one appended after a
function's last line ends the module later but not the function); `shift_graph` applies them to a graph built before, in the places a Python file's
lines are kept there (its nodes' spans, the edges from its nodes). `graph_reuse` says when that
graph is the one a full build would make.
"""
from __future__ import annotations

from dataclasses import dataclass, is_dataclass
from typing import Any

import networkx as nx

from ragstream.index.model import ParsedFile

LineMap = dict[int, int]
_LINE = "line"  # a line something is at (a reference, a call, an edge)
_SPAN = ("start_line", "end_line")  # a node's span: the module's starts at 1 whatever moved
_CALL_LINE = 3  # a Python flow fact's call is [callee, arguments, keywords, line, flag]


@dataclass(frozen=True)
class FileMove:
    """How an edit moved a file's lines: old line -> new line, and node id -> its new span."""

    lines: LineMap
    spans: dict[str, tuple[int, int]]


def line_move(old: ParsedFile, new: ParsedFile) -> FileMove | None:
    """How `old` became `new` when the two differ in nothing but lines and their lines keep
    their order; else None."""
    old_lines: list[int] = []
    new_lines: list[int] = []
    if _line_free(_facts(old), old_lines) != _line_free(_facts(new), new_lines):
        return None
    mapped: LineMap = {}
    for before, after in zip(old_lines, new_lines):
        if mapped.setdefault(before, after) != after:
            return None
    ordered = sorted(mapped.items())
    if any(a[1] >= b[1] for a, b in zip(ordered, ordered[1:])):
        return None  # lines swapped or merged: not a shift
    return FileMove(mapped, {node.id: (node.start_line, node.end_line) for node in new.nodes})


def _facts(parsed: ParsedFile) -> dict:
    """The parse result as compared: a flow scope's own line is left out, as the call solve
    leaves it out (`python/calls/link.py`) and no linker reads it."""
    return {**vars(parsed), "flow": [{k: v for k, v in scope.items() if k != _LINE} for scope in parsed.flow]}


def _line_free(value: Any, lines: list[int], key: str = "") -> Any:
    """`value` with every line number replaced by None, the numbers appended to `lines` in the
    order met (a dict's keys in their order, so the two sides meet them alike); ends are left
    out (`FileMove.spans`)."""
    if key == _LINE and type(value) is int:
        lines.append(value)
        return None
    if key in _SPAN and type(value) is int:
        return None
    if isinstance(value, dict):
        return {k: _line_free(v, lines, k) for k, v in value.items()}
    if is_dataclass(value):  # a node, an edge, a reference: its fields, read in place
        return type(value), _line_free(vars(value), lines)
    if isinstance(value, (list, tuple)):
        if key == "calls" and all(_is_flow_call(call) for call in value):
            return [[*call[:_CALL_LINE], _line_free(call[_CALL_LINE], lines, "line"), *call[_CALL_LINE + 1:]]
                    for call in value]
        return [_line_free(v, lines) for v in value]
    return value


def _is_flow_call(call: Any) -> bool:
    return isinstance(call, list) and len(call) == 5 and type(call[_CALL_LINE]) is int


def shift_graph(graph: nx.MultiDiGraph, moves: dict[str, FileMove]) -> nx.MultiDiGraph | None:
    """A copy of `graph` (node, successor and predecessor order kept; each node's data its own,
    as access labels are written there after; the edge tables the move leaves as they were
    shared, as nothing changes an edge after linking) with the lines of the files in `moves`
    (path -> how its lines moved) moved: the spans of their nodes and the lines of the edges from
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
                shifted = _moved(data, move.lines)
                if shifted is None:
                    return None
                out[target][key] = edges[id(data)] = shifted
        copy._succ[source] = out  # type: ignore[attr-defined]
    for target, sources in graph._pred.items():  # type: ignore[attr-defined]
        copy._pred[target] = sources if target not in moved_to else {  # type: ignore[attr-defined]
            source: {key: edges.get(id(data), data) for key, data in keyed.items()} for source, keyed in sources.items()}
    return copy


def _moved_node(node: str, data: dict, move: FileMove) -> dict | None:
    """A node's data with its span the new one and any other line mapped."""
    span = move.spans.get(node)
    shifted = _moved({k: v for k, v in data.items() if k not in _SPAN}, move.lines) if span else None
    if span is None or shifted is None:
        return None
    return {k: span[_SPAN.index(k)] if k in _SPAN else shifted[k] for k in data}


def _moved(data: dict, moved: LineMap) -> dict | None:
    """`data` with each line number mapped; None when one is not in `moved`, or a span is met
    (only a node's own is known: `_moved_node`)."""
    missing: list[int] = []

    def each(value: Any, key: str = "") -> Any:
        if (key == _LINE and type(value) is int and value not in moved) or key in _SPAN:
            missing.append(value)
        if key == _LINE and type(value) is int:
            return moved.get(value, value)
        if isinstance(value, dict):
            return {k: each(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [each(v) for v in value]
        return value

    shifted = each(data)
    return None if missing else shifted
