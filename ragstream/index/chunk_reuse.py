"""Which chunks of a process's previous build a re-index takes as they are (`index --watch`):
rendering every chunk's header from the graph was most of chunking after an edit, and an edit
changes few of them.

A node's chunks are made from its own data, its file's text, the nodes of its file it elides
(their lines and signatures), and its header: its parent's data, the edges at it with their
attributes, and the data of the nodes at their other ends (names, kinds, paths, access labels);
the token limits and the counter. So they are the previous build's when, under the same limits,
neither the node's file nor the data of a node in that file changed, the edges at it are the same,
and neither its parent's nor a neighbour's data changed. Everything else is chunked again.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from ragstream.index.model import Chunk


@dataclass(frozen=True)
class BuiltChunks:
    """What a build chunked: its graph and file texts, each node's chunks, and the limits
    (max tokens, max header names, token encoding) they were made under."""

    graph: nx.MultiDiGraph
    texts: dict[str, str]
    by_node: dict[str, list[Chunk]]
    limits: tuple

    @classmethod
    def of(cls, graph: nx.MultiDiGraph, texts: dict[str, str], chunks: list[Chunk], limits: tuple) -> "BuiltChunks":
        by_node: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            by_node[chunk.node_id].append(chunk)
        return cls(graph, texts, dict(by_node), limits)


def reusable_chunks(before: BuiltChunks | None, graph: nx.MultiDiGraph, texts: dict[str, str],
                    limits: tuple) -> dict[str, list[Chunk]]:
    """Node -> its chunks from `before`, for every node whose chunks `graph` and `texts` would
    make the same (the module docstring says when)."""
    if before is None or before.limits != limits:
        return {}
    old_nodes, old_succ, old_pred = _tables(before.graph)
    nodes, succ, pred = _tables(graph)
    changed = [node for node, data in nodes.items() if old_nodes.get(node) != data]
    changed += [node for node in old_nodes if node not in nodes]
    redo = {node for node in nodes if _differ(old_succ.get(node), succ[node]) or _differ(old_pred.get(node), pred[node])}
    redo_files = {path for path, text in texts.items() if before.texts.get(path) != text}
    children: dict[str, list[str]] = defaultdict(list)
    for node, data in nodes.items():
        if data.get("parent"):
            children[data["parent"]].append(node)
    for node in changed:
        redo_files.update(data["path"] for data in (nodes.get(node), old_nodes.get(node)) if data and data.get("path"))
        if node in nodes:
            redo.update(succ[node], pred[node])
        redo.update(children.get(node, ()))
    return {node: chunks for node, chunks in before.by_node.items()
            if node in nodes and node not in redo and nodes[node].get("path") not in redo_files}


def _tables(graph: nx.MultiDiGraph) -> tuple[dict, dict, dict]:
    """networkx's own tables (node -> data; node -> neighbour -> key -> edge data, out and in):
    compared as plain dicts they are compared in C, where its views would build a dict a level."""
    return graph._node, graph._succ, graph._pred  # type: ignore[attr-defined]


def _differ(old: dict | None, new: dict) -> bool:
    """Whether two adjacency tables differ; one table shared by both graphs (the interim graph
    shares its untouched nodes' with the graph it was made from, `graph_interim`) is not walked."""
    return old is not new and old != new
