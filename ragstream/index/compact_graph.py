"""The dependency graph in a compact form that a cold process reads in milliseconds.

`graph.json` (networkx node-link data) is read back by adding every node and edge to a new
`MultiDiGraph`: seconds for a few hundred thousand edges, paid by every `ragstream ask`. The
compact form, written beside it at build time, holds the same graph as arrays (CSR adjacency
over node numbers, one key and attribute id per edge) and the attributes as JSON texts read by
offset. `CompactGraph` is a `networkx.MultiDiGraph` whose node, successor and predecessor
tables are lazy mappings: a node's attributes, or its adjacency, are made the first time they are
asked for, so a question pays for the neighbourhood it walks, not for the graph. Every networkx
function and view works on it unchanged, and it answers exactly as the graph `graph.json`
gives: same nodes, attributes and edges, in the same order (node-link data's order: nodes as
listed, successors and keys in edge order, predecessors in edge order), attributes as JSON gives
them back (a node's `id` attribute dropped, tuples read as lists).
"""
from __future__ import annotations

import io
from bisect import bisect_left
from collections.abc import Hashable, ItemsView, Iterator, Mapping
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import orjson

from ragstream.index.graph_text import GraphText, graph_text
from ragstream.index.store import write_bytes

FOLDER = "graph_compact"  # inside a generation; absent in indexes built before it (graph.json is read then)
_META = "meta.json"  # graph attributes, node ids, edge keys
_NAMES = "names.json"  # the nodes' lower-cased short names, sorted: found by bisection, no node read
_ARRAYS = ("edge_source", "edge_target", "edge_key", "edge_attrs", "out_start", "in_order", "in_start",
           "node_offsets", "attr_offsets", "named_nodes", "named_start")
_NODE_TEXT = "nodes.json"  # one JSON array of every node's attributes, each item found by offset
_EDGE_TEXT = "edge_attrs.json"  # one JSON array of the distinct edge attribute sets
_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS  # as `store.write_json` writes graph.json


def write_compact_graph(folder: Path, graph: nx.MultiDiGraph, text: GraphText | None = None) -> None:
    """The compact form of `graph` in `folder` (made here), in node-link data's order; `text`:
    the graph's texts when made already (`graph_text`)."""
    text = text or graph_text(graph)
    folder.mkdir(parents=True, exist_ok=True)
    edge_attrs, attr_texts = text.edge_attrs()
    in_order = np.argsort(text.target, kind="stable").astype(np.int32)
    arrays = {"edge_source": text.source, "edge_target": text.target, "edge_key": text.edge_key,
              "edge_attrs": edge_attrs, "out_start": _starts(text.source, len(text.nodes)), "in_order": in_order,
              "in_start": _starts(text.target[in_order], len(text.nodes))}
    arrays["node_offsets"] = _write_array_text(folder / _NODE_TEXT, text.node_items)
    arrays["attr_offsets"] = _write_array_text(folder / _EDGE_TEXT, attr_texts)
    shorts, arrays["named_nodes"], arrays["named_start"] = _name_arrays(graph)
    write_bytes(folder / _NAMES, orjson.dumps(shorts))
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        write_bytes(folder / f"{name}.npy", buffer.getvalue())
    # Last: a folder with its meta is whole (the manifest's sizes vouch for each file too).
    write_bytes(folder / _META, orjson.dumps({"graph": graph.graph, "nodes": text.nodes, "keys": text.keys},
                                              option=_JSON_OPTIONS))


def _name_arrays(graph: nx.MultiDiGraph) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The nodes' distinct short names, sorted, and the numbers of the nodes of each (CSR)."""
    by_short: dict[str, list[int]] = {}
    for i, (_, data) in enumerate(graph.nodes(data=True)):
        if isinstance(name := data.get("name"), str) and name:
            by_short.setdefault(short_name(name), []).append(i)
    shorts = sorted(by_short)
    nodes = np.array([i for short in shorts for i in by_short[short]], dtype=np.int32)
    return shorts, nodes, np.cumsum([0] + [len(by_short[short]) for short in shorts]).astype(np.int64)


def read_compact_graph(folder: Path) -> "CompactGraph | None":
    """The graph of a compact folder; None when there is none (an index built before it)."""
    if not (folder / _META).is_file():
        return None
    return CompactGraph.read(folder)


class CompactGraph(nx.MultiDiGraph):
    """A read-only `MultiDiGraph` over a compact folder: nodes and adjacency made on first use.
    Made empty (`CompactGraph()`) it is a plain graph: networkx makes views that way."""

    _tables: "_Tables | None" = None  # None: an empty graph made by networkx

    @classmethod
    def read(cls, folder: Path) -> "CompactGraph":
        meta = orjson.loads((folder / _META).read_bytes())
        arrays = {name: np.load(folder / f"{name}.npy", allow_pickle=False) for name in _ARRAYS}
        tables = _Tables(folder, meta["nodes"], meta["keys"], arrays, (folder / _NODE_TEXT).read_bytes(),
                         (folder / _EDGE_TEXT).read_bytes())
        graph = cls()
        graph.graph = meta["graph"]
        graph._tables = tables
        # networkx's own tables, which every view and function reads (its stubs do not declare them)
        graph._node = _Nodes(tables)  # type: ignore[attr-defined]
        graph._adj = _Adjacency(tables, outgoing=True)  # type: ignore[attr-defined]  # also sets `_succ`
        graph._pred = _Adjacency(tables, outgoing=False)  # type: ignore[attr-defined]
        return graph

    def named(self, short: str) -> list[Any]:
        """The nodes whose `short_name` is `short`, in node order (the index of names is read on first use)."""
        assert self._tables is not None, "a compact graph read from a folder"
        return self._tables.named(short)


def short_name(name: str) -> str:
    """A node's name as lookups by name compare it: its last dotted part, lower-cased."""
    return name.rsplit(".", 1)[-1].lower()


def compact_root(graph: nx.MultiDiGraph) -> CompactGraph | None:
    """The `CompactGraph` under a graph or a chain of views of one (None: another graph)."""
    while not isinstance(graph, CompactGraph) and hasattr(graph, "_graph"):
        graph = graph._graph
    return graph if isinstance(graph, CompactGraph) and graph._tables is not None else None


class _Tables:
    """The arrays and texts of one compact graph, and what has been read of them."""

    def __init__(self, folder: Path, nodes: list[Hashable], keys: list[Any], arrays: dict[str, np.ndarray],
                 node_text: bytes, edge_text: bytes):
        self.folder = folder
        self.nodes = nodes
        self.number = {node: i for i, node in enumerate(nodes)}
        self.keys = keys
        self.arrays = arrays
        self.node_text, self.edge_text = node_text, edge_text
        self.node_data: dict[int, dict] = {}
        self.edge_data: dict[int, dict] = {}  # by edge: the one dict both ends of an edge hold
        self.shorts: list[str] | None = None  # the sorted short names, read on first lookup

    def node(self, i: int) -> dict:
        data = self.node_data.get(i)
        if data is None:
            offsets = self.arrays["node_offsets"]
            data = self.node_data[i] = orjson.loads(self.node_text[offsets[i]:offsets[i + 1] - 1])
        return data

    def all_nodes(self) -> None:
        """Every node's attributes, read in one pass (a whole-graph scan)."""
        if len(self.node_data) < len(self.nodes):
            for i, data in enumerate(orjson.loads(self.node_text)):
                self.node_data.setdefault(i, data)

    def named(self, short: str) -> list[Any]:
        if self.shorts is None:
            self.shorts = orjson.loads((self.folder / _NAMES).read_bytes())
        at = bisect_left(self.shorts, short)
        if at == len(self.shorts) or self.shorts[at] != short:
            return []
        starts = self.arrays["named_start"]
        return [self.nodes[i] for i in self.arrays["named_nodes"][starts[at]:starts[at + 1]].tolist()]

    def edge(self, e: int) -> dict:
        data = self.edge_data.get(e)
        if data is None:
            attrs, offsets = int(self.arrays["edge_attrs"][e]), self.arrays["attr_offsets"]
            data = self.edge_data[e] = orjson.loads(self.edge_text[offsets[attrs]:offsets[attrs + 1] - 1])
        return data

    def adjacency(self, i: int, outgoing: bool) -> dict[Hashable, dict[Any, dict]]:
        """Node i's successors (or predecessors), each with its edges by key, in edge order."""
        arrays = self.arrays
        if outgoing:
            edges = range(int(arrays["out_start"][i]), int(arrays["out_start"][i + 1]))
            ends = arrays["edge_target"]
        else:
            edges = arrays["in_order"][int(arrays["in_start"][i]):int(arrays["in_start"][i + 1])].tolist()
            ends = arrays["edge_source"]
        found: dict[Hashable, dict[Any, dict]] = {}
        keys = arrays["edge_key"]
        for e in edges:
            found.setdefault(self.nodes[ends[e]], {})[self.keys[keys[e]]] = self.edge(e)
        return found


class _ByNode(Mapping):
    """A mapping keyed by the graph's nodes, in their order."""

    _tables: _Tables

    def __contains__(self, node: object) -> bool:
        return node in self._tables.number

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._tables.nodes)

    def __len__(self) -> int:
        return len(self._tables.nodes)


class _Nodes(_ByNode):
    """Node -> its attributes, read on first use."""

    def __init__(self, tables: _Tables):
        self._tables = tables

    def __getitem__(self, node: Hashable) -> dict:
        return self._tables.node(self._tables.number[node])

    def items(self) -> ItemsView:
        self._tables.all_nodes()  # a scan of every node's data: one parse, not one per node
        return super().items()


class _Adjacency(_ByNode):
    """Node -> its successors (or predecessors) -> key -> edge attributes, made on first use."""

    def __init__(self, tables: _Tables, outgoing: bool):
        self._tables, self._outgoing = tables, outgoing
        self._made: dict[int, dict] = {}

    def __getitem__(self, node: Hashable) -> dict[Hashable, dict[Any, dict]]:
        i = self._tables.number[node]
        made = self._made.get(i)
        if made is None:
            made = self._made[i] = self._tables.adjacency(i, self._outgoing)
        return made


def _starts(sorted_ends: np.ndarray, n: int) -> np.ndarray:
    """CSR row starts: where node i's run begins in `sorted_ends` (n + 1 entries)."""
    return np.searchsorted(sorted_ends, np.arange(n + 1)).astype(np.int64)


def _write_array_text(path: Path, items: list[bytes]) -> np.ndarray:
    """Write the JSON texts as one JSON array (`[a,b,...]`: read whole in one parse) and return
    where each item starts, then one past the end: item i is text[starts[i]:starts[i + 1] - 1]."""
    write_bytes(path, b"[" + b",".join(items) + b"]")
    starts = np.ones(len(items) + 1, dtype=np.int64)
    np.cumsum([len(item) + 1 for item in items], out=starts[1:])
    starts[1:] += 1  # after the opening bracket
    return starts
