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
    graph = _copied(before.graph)
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


def _copied(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy of `graph` with its own attributes, node data and adjacency, sharing each edge's
    data dict with it: labelling the copy's nodes or removing its edges leaves `graph` as it was,
    and nothing changes an edge's data once it is made. (`graph.copy()` copies every edge's data
    through `add_edges_from`: ~3x the time on a 13k-node graph.)"""
    copy: nx.MultiDiGraph = nx.MultiDiGraph()
    copy.graph.update(graph.graph)
    copy._node.update((node, dict(data)) for node, data in graph._node.items())  # type: ignore[attr-defined]
    for mine, theirs in ((copy._succ, graph._succ), (copy._pred, graph._pred)):  # type: ignore[attr-defined]
        mine.update((node, {other: dict(keys) for other, keys in ends.items()}) for node, ends in theirs.items())
    return copy
