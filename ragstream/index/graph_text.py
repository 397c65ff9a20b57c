"""The graph as the JSON texts an index writes of it, made once for both forms -- `graph.json`
(networkx node-link data) and the compact folder (`compact_graph`) -- and, after an edit that only
moved lines (`graph_reuse`), made from the previous build's by re-encoding the nodes of the moved
files and the edges from them: the rest of a moved graph is the previous one's, so are its texts.

Each node's attributes are encoded once without its id (the compact form's item) and spliced
into node-link data's `{**attributes, "id": node}`; each edge's once without its ends and key (the
compact form's attribute text) and spliced into `{**attributes, "source": u, "target": v, "key":
k}`: the bytes orjson writes for `node_link_data(graph)`, checked in `tests/test_graph_text.py`.
"""
from __future__ import annotations

from collections.abc import Collection, Hashable
from dataclasses import dataclass, replace
from typing import Any

import networkx as nx
import numpy as np
import orjson

_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS  # as `store.write_json` writes graph.json
_LINK_FIELDS = ("source", "target", "key")  # node-link data's own fields of an edge


@dataclass(frozen=True)
class GraphText:
    """One graph's texts (`graph` is the graph they are of) and its edges as arrays, in
    node-link data's order (nodes as listed; edges by source, then successor, then key)."""

    graph: nx.MultiDiGraph
    nodes: list[Hashable]
    node_items: list[bytes]  # each node's attributes without its id
    link_nodes: list[bytes]  # node-link data's node items
    rows_of_path: dict[str, list[int]]  # a file's nodes, by number
    edge_texts: list[bytes]  # each edge's attributes without its ends and key
    link_edges: list[bytes]  # node-link data's edge items
    source: np.ndarray  # int32 node number of each edge's source (ascending)
    target: np.ndarray  # int32 node number of each edge's target
    edge_key: np.ndarray  # int32 number of each edge's key in `keys`
    keys: list[Any]  # the distinct edge keys, in order of first use

    def graph_json(self) -> bytes:
        """`graph.json`: orjson's bytes of `nx.node_link_data(graph, edges="edges")`."""
        head = _dumps({"directed": self.graph.is_directed(), "multigraph": self.graph.is_multigraph(),
                       "graph": self.graph.graph})
        return b"".join((head[:-1], b',"nodes":[', b",".join(self.link_nodes), b'],"edges":[',
                         b",".join(self.link_edges), b"]}"))

    def edge_attrs(self) -> tuple[np.ndarray, list[bytes]]:
        """Each edge's number in the distinct attribute texts (edges alike share one), and those texts."""
        distinct: dict[bytes, int] = {}
        numbers = np.fromiter((distinct.setdefault(text, len(distinct)) for text in self.edge_texts),
                              dtype=np.int32, count=len(self.edge_texts))
        return numbers, list(distinct)


def graph_text(graph: nx.MultiDiGraph, before: GraphText | None = None, moved: Collection[str] = ()) -> GraphText:
    """The texts of `graph`; with `before`, the texts of the graph `graph` was moved from by
    `line_shift.shift_graph` and `moved` the paths whose lines it moved, made from those: only
    the moved files' nodes and the edges from them are encoded again."""
    if before is not None:
        try:
            return _moved(graph, before, moved)
        except ValueError:  # not the edges it was moved from after all: encoded whole, as a full build does
            pass
    nodes = list(graph)
    number = {node: i for i, node in enumerate(nodes)}
    ids = [_dumps(node) for node in nodes]
    node_items, link_nodes = [], []
    rows_of_path: dict[str, list[int]] = {}
    for i, (node, data) in enumerate(graph.nodes(data=True)):
        item, link = _node_texts(node, data, ids[i])
        node_items.append(item)
        link_nodes.append(link)
        if path := data.get("path"):
            rows_of_path.setdefault(path, []).append(i)
    keys: dict[Any, int] = {}
    key_ids: dict[Any, bytes] = {}
    sources, targets, edge_keys, edge_texts, link_edges = [], [], [], [], []
    for u, successors in graph.adjacency():  # node-link data's edge order
        source = number[u]
        for v, by_key in successors.items():
            target = number[v]
            for key, data in by_key.items():
                sources.append(source)
                targets.append(target)
                edge_keys.append(keys.setdefault(key, len(keys)))
                text, link = _edge_texts(data, ids[source], ids[target], key, key_ids)
                edge_texts.append(text)
                link_edges.append(link)
    return GraphText(graph, nodes, node_items, link_nodes, rows_of_path, edge_texts, link_edges,
                     np.array(sources, dtype=np.int32), np.array(targets, dtype=np.int32),
                     np.array(edge_keys, dtype=np.int32), list(keys))


def _moved(graph: nx.MultiDiGraph, before: GraphText, moved: Collection[str]) -> GraphText:
    node_items, link_nodes = list(before.node_items), list(before.link_nodes)
    edge_texts, link_edges = list(before.edge_texts), list(before.link_edges)
    starts = np.searchsorted(before.source, np.arange(len(before.nodes) + 1))  # each node's first edge
    rows = {before.nodes[i]: i for path in moved for i in before.rows_of_path.get(path, ())}
    ids = {node: _dumps(node) for node in rows}
    for node, i in rows.items():
        node_items[i], link_nodes[i] = _node_texts(node, graph.nodes[node], ids[node])
    keys: dict[Any, bytes] = {}
    for node, i in rows.items():  # the edges from a moved node: the same ends and keys, in the same order
        e = int(starts[i])
        for v, by_key in graph._succ[node].items():  # type: ignore[attr-defined]
            target = ids.get(v) or _dumps(v)
            for key, data in by_key.items():
                if e >= starts[i + 1] or before.nodes[before.target[e]] != v or before.keys[before.edge_key[e]] != key:
                    raise ValueError(f"the edges from {node!r} are not the graph's they were moved from")
                edge_texts[e], link_edges[e] = _edge_texts(data, ids[node], target, key, keys)
                e += 1
        if e != starts[i + 1]:
            raise ValueError(f"the edges from {node!r} are not the graph's they were moved from")
    return replace(before, graph=graph, node_items=node_items, link_nodes=link_nodes, edge_texts=edge_texts,
                   link_edges=link_edges)


def patched_text(graph: nx.MultiDiGraph, before: GraphText, redo: Collection[Hashable]) -> GraphText:
    """The texts of `graph` -- `before.graph` less some nodes (and the edges at them), then new
    nodes last, where only the nodes in `redo` may have other data or other edges from them
    (`graph_interim`'s interim graph) -- made from `before`'s: the other nodes' texts and the
    edges from them are taken as they were, less the edges to nodes gone. The same bytes as
    `graph_text(graph)`; a ValueError when `graph` is not such a graph."""
    old_row = {node: i for i, node in enumerate(before.nodes)}
    starts = np.searchsorted(before.source, np.arange(len(before.nodes) + 1))  # each node's first edge
    nodes = list(graph)
    number = {node: i for i, node in enumerate(nodes)}
    ids: dict[Hashable, bytes] = {}
    node_items, link_nodes = [], []
    rows_of_path: dict[str, list[int]] = {}
    keys: dict[Any, int] = {}
    key_ids: dict[Any, bytes] = {}
    sources, targets, edge_keys, edge_texts, link_edges = [], [], [], [], []
    for i, (node, data) in enumerate(graph.nodes(data=True)):
        j = old_row.get(node)
        if path := data.get("path"):
            rows_of_path.setdefault(path, []).append(i)
        successors = graph._succ[node]  # type: ignore[attr-defined]
        if j is not None and node not in redo:
            node_items.append(before.node_items[j])
            link_nodes.append(before.link_nodes[j])
            # each kept edge is the graph's next one from the node: the same target and key, in order
            # (as `_moved` checks), else these texts would be written for edges that are not these
            edges = ((v, key) for v, by_key in successors.items() for key in by_key)
            for e in range(int(starts[j]), int(starts[j + 1])):
                v = before.nodes[before.target[e]]
                target = number.get(v)
                if target is None:
                    continue  # to a node gone
                key = before.keys[before.edge_key[e]]
                if next(edges, None) != (v, key):
                    raise ValueError(f"the edges from {node!r} are not the ones it had")
                sources.append(i)
                targets.append(target)
                edge_keys.append(keys.setdefault(key, len(keys)))
                edge_texts.append(before.edge_texts[e])
                link_edges.append(before.link_edges[e])
            if next(edges, None) is not None:
                raise ValueError(f"the edges from {node!r} are not the ones it had")
            continue
        own = ids.setdefault(node, _dumps(node))
        item, link = _node_texts(node, data, own)
        node_items.append(item)
        link_nodes.append(link)
        for v, by_key in successors.items():
            target_id = ids.setdefault(v, _dumps(v))
            for key, edge in by_key.items():
                sources.append(i)
                targets.append(number[v])
                edge_keys.append(keys.setdefault(key, len(keys)))
                text, link = _edge_texts(edge, own, target_id, key, key_ids)
                edge_texts.append(text)
                link_edges.append(link)
    return GraphText(graph, nodes, node_items, link_nodes, rows_of_path, edge_texts, link_edges,
                     np.array(sources, dtype=np.int32), np.array(targets, dtype=np.int32),
                     np.array(edge_keys, dtype=np.int32), list(keys))


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=_JSON_OPTIONS)


def _node_texts(node: Hashable, data: dict, node_id: bytes) -> tuple[bytes, bytes]:
    """A node's attributes without its id, and its node-link item (`{**data, "id": node}`)."""
    if "id" in data:  # node-link data keeps the attribute's place, with the node as its value
        return _dumps({k: v for k, v in data.items() if k != "id"}), _dumps({**data, "id": node})
    item = _dumps(data)
    return item, b"".join((item[:-1], b',"id":' if len(item) > 2 else b'"id":', node_id, b"}"))


def _edge_texts(data: dict, source: bytes, target: bytes, key: Any, keys: dict[Any, bytes]) -> tuple[bytes, bytes]:
    """An edge's attributes without its ends and key, and its node-link item (`keys`: each
    key's JSON met so far)."""
    if "source" in data or "target" in data or "key" in data:
        return (_dumps({k: v for k, v in data.items() if k not in _LINK_FIELDS}),
                _dumps({**data, "source": orjson.loads(source), "target": orjson.loads(target), "key": key}))
    key_json = keys.get(key)
    if key_json is None:
        key_json = keys[key] = _dumps(key)
    text = _dumps(data)
    return text, b"".join((text[:-1], b',"source":' if len(text) > 2 else b'"source":', source, b',"target":',
                           target, b',"key":', key_json, b"}"))
