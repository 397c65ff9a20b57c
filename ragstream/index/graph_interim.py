"""The graph a re-index publishes first after an edit of Python files (`index --watch`), marked
as updating, so that the edit is askable before the whole-program call solve and the linkers
have run: on a 133k-line tree they are ~4 of a code edit's ~4.5 CPU s (docs/BENCHMARKS.md).

The interim graph is the previous build's with each changed file's own part taken from its new
parse -- its nodes (their data replaced, those gone removed, new ones added last) and its in-file
edges -- and every edge across files left as the previous build linked it: edges to definitions
that are gone go with them, a new definition has none yet, and an edited body keeps its old
calls. It is not what a full build makes, so the generation that holds it says so
(`graph_mark`: the files changed since the graph was linked, in its manifest and in the graph's
own attributes); the build goes on to link the whole graph and publishes the exact generation,
which carries no such mark.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ragstream.index.graph_edits import add_edge
from ragstream.index.graph_reuse import BuiltGraph
from ragstream.index.model import ParsedFile
from ragstream.index.store import ParseRecord


@dataclass(frozen=True)
class Interim:
    """An interim graph, the files it took from their new parse, and the nodes whose data or
    edges from them may differ from the previous graph's (`graph_text.patched_text`)."""

    graph: nx.MultiDiGraph
    changed: list[str]
    redo: set[str]


def interim_graph(before: BuiltGraph | None, records: dict[str, ParseRecord]) -> Interim | None:
    """The interim graph (module docstring); None when there is none to make: no previous
    build in this process, files added, removed or reordered, a changed file that is not
    Python, or nothing changed."""
    if before is None or list(before.records) != list(records):
        return None
    changed = [path for path, record in records.items() if before.records[path].key != record.key]
    if not changed or any(before.records[path].parsed.language != "python" or records[path].parsed.language != "python"
                          for path in changed):
        return None
    graph = _copied(before.graph, _touched(before.graph, [before.records[path].parsed for path in changed],
                                           [records[path].parsed for path in changed]))
    redo: set[str] = set()
    for path in changed:
        old, new = before.records[path].parsed, records[path].parsed
        redo.update(node.id for node in [*old.nodes, *new.nodes])
        redo.update(edge.source for edge in [*old.edges, *new.edges])
        kept = {node.id for node in new.nodes}
        graph.remove_nodes_from([node.id for node in old.nodes if node.id not in kept])
        for edge in old.edges:
            if graph.has_edge(edge.source, edge.target, key=edge.type):
                graph.remove_edge(edge.source, edge.target, key=edge.type)
        for node in new.nodes:
            if node.id in graph:
                data = graph.nodes[node.id]
                data.clear()
                data.update(vars(node))
            else:
                graph.add_node(node.id, **vars(node))
        for edge in new.edges:
            add_edge(graph, edge.source, edge.target, edge.type, edge.attrs)
    graph.graph["generated_files"] = sorted(path for path, record in records.items()
                                            if graph.nodes[record.parsed.root_id]["attrs"].get("generated"))
    return Interim(graph, changed, redo)


def _touched(graph: nx.MultiDiGraph, old: list[ParsedFile], new: list[ParsedFile]) -> set[str]:
    """The nodes whose adjacency making the interim graph may change: the changed files' nodes,
    old and new, the ends of their edges, and every neighbour of their old nodes (removing a
    node removes the edges at it from its neighbours' tables too)."""
    touched = {node.id for parsed in [*old, *new] for node in parsed.nodes}
    touched.update(end for parsed in [*old, *new] for edge in parsed.edges for end in (edge.source, edge.target))
    for parsed in old:
        for node in parsed.nodes:
            if node.id in graph:
                touched.update(graph._succ[node.id])  # type: ignore[attr-defined]
                touched.update(graph._pred[node.id])  # type: ignore[attr-defined]
    return touched


def _copied(graph: nx.MultiDiGraph, touched: set[str]) -> nx.MultiDiGraph:
    """A copy of `graph` that can be changed at the `touched` nodes and labelled anywhere, leaving
    `graph` as it was: its own attributes and node data; its own adjacency tables for the touched
    nodes, with their own key tables for edges between two touched nodes (each shared by the
    source's successors and the target's predecessors, as networkx keeps it: removing one of two
    parallel edges then removes it both ways); every other table, and every edge's data, shared
    with `graph` (nothing changes an edge's data once it is made). Comparing the copy's tables
    with `graph`'s (`chunk_reuse`) is then an identity test at every untouched node. (A whole
    copy took ~0.06 s on a 13k-node graph; `graph.copy()` ~3x that.)"""
    copy: nx.MultiDiGraph = nx.MultiDiGraph()
    copy.graph.update(graph.graph)
    copy._node.update((node, dict(data)) for node, data in graph._node.items())  # type: ignore[attr-defined]
    succ, pred = dict(graph._succ), dict(graph._pred)  # type: ignore[attr-defined]
    for node in touched & succ.keys():
        succ[node] = {other: dict(keys) if other in touched else keys for other, keys in succ[node].items()}
    for node in touched & pred.keys():
        pred[node] = {other: succ[other][node] if other in touched else keys for other, keys in pred[node].items()}
    copy._succ.update(succ)  # type: ignore[attr-defined]
    copy._pred.update(pred)  # type: ignore[attr-defined]
    return copy
