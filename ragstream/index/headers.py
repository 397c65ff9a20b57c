"""A chunk's context header (file, symbol, defined in, signature, calls, called by, reads, ...),
rendered from the graph for whoever will read it.

The rows that name neighbours are derived text: a neighbour hidden from a caller must not show
up in a visible chunk's header. So the header is written twice over:
- at index time, for what is embedded and keyword-indexed (`indexed_header`), naming only the
  neighbours no filter can separate from the chunk -- the same file, kind, language and access
  labels, the whole of what a filter looks at -- so no caller's search can match or rank on a
  name it may not see;
- at fetch time, for the caller (`for_caller`), over the graph view its filters allow, so a
  visible neighbour is named whatever file it lives in, and a hidden one never is.
`defined in` is also kept when the chunk's own symbol or file already spells the parent out.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import networkx as nx

from ragstream.index.model import Chunk

# (edge type, direction, header label); "out" lists targets, "in" lists sources.
HEADER_RELATIONS = (
    ("INHERITS", "out", "inherits"), ("IMPLEMENTS", "out", "implements"),
    ("CALLS", "out", "calls"), ("CALLS", "in", "called by"),
    ("READS", "out", "reads"), ("WRITES", "out", "writes"),
    ("READS", "in", "read by"), ("WRITES", "in", "written by"),
    ("FOREIGN_KEY", "out", "references"), ("FOREIGN_KEY", "in", "referenced by"),
    ("MAPS_TO", "out", "maps to"), ("MAPS_TO", "in", "mapped by"),
    ("INHERITS", "in", "subclassed by"), ("IMPLEMENTS", "in", "implemented by"),
)
RELATION_LABELS = tuple(f"{label}:" for _, _, label in HEADER_RELATIONS)
_RELATION_TYPES = frozenset(edge_type for edge_type, _, _ in HEADER_RELATIONS)
# What a retrieval filter looks at, per node: two nodes equal on all of it are always seen together.
_FILTERED_ON = ("path", "kind", "language", "acl")


def indexed_header(graph: nx.MultiDiGraph, node: str, max_names: int) -> str:
    """The header that is embedded and keyword-indexed: neighbours named only when inseparable."""
    own = graph.nodes[node]
    return render_header(graph, node, max_names,
                         lambda other: all(graph.nodes[other].get(k) == own.get(k) for k in _FILTERED_ON))


def for_caller(chunk: Chunk, graph: nx.MultiDiGraph, max_names: int) -> Chunk:
    """The chunk with the header a caller reads, rendered over the graph (view) its filters
    allow. A chunk whose node the graph lacks keeps its indexed header, which hides nothing."""
    if chunk.node_id not in graph:
        return chunk
    meta = chunk.metadata
    part = (meta["part"], meta["parts"]) if "part" in meta else None
    header = render_header(graph, chunk.node_id, max_names, graph.__contains__, part)
    return replace(chunk, metadata={**meta, "header": header})


def render_header(graph: nx.MultiDiGraph, node: str, max_names: int, shown: Callable[[str], bool],
                  part: tuple[int, int] | None = None) -> str:
    """The header rows of `node`, naming only the neighbours `shown` lets through (with `+N more`
    counting only those)."""
    data = graph.nodes[node]
    rows = [f"file: {data.get('path', '')}",
            f"symbol: {data.get('name', node)} ({data.get('kind', '').lower()}, {data.get('language', '')})"]
    parent = data.get("parent")
    if parent and parent in graph and (shown(parent) or _spelled_out(graph.nodes[parent], data)):
        rows.append(f"defined in: {graph.nodes[parent]['name']}")
    if data.get("signature"):
        rows.append(f"signature: {' '.join(data['signature'].split())}")
    related = _related(graph, node, shown)
    for edge_type, direction, label in HEADER_RELATIONS:
        names = sorted(related.get((edge_type, direction), ()))
        if names:
            more = f" (+{len(names) - max_names} more)" if len(names) > max_names else ""
            rows.append(f"{label}: {', '.join(names[:max_names])}{more}")
    if part:
        rows.append(f"part: {part[0]} of {part[1]}")
    return "\n".join(rows)


def _related(graph: nx.MultiDiGraph, node: str, shown: Callable[[str], bool]) -> dict[tuple[str, str], set[str]]:
    """(edge type, direction) -> display names of the shown nodes at the other end."""
    related: dict[tuple[str, str], set[str]] = {}
    # networkx's own tables (other end -> edge type -> data), read without its edge views' cost
    for direction, table in (("out", graph._succ[node]), ("in", graph._pred[node])):  # type: ignore[attr-defined]
        for other, edges in table.items():
            for edge_type, data in edges.items():
                # an edge no row lists (a definition's DEFINES, most edges of an unlinked graph) is not judged
                if edge_type in _RELATION_TYPES and other != node and shown(other):
                    mark = " (guess)" if data.get("guess") else ""  # linked by name only
                    related.setdefault((edge_type, direction), set()).add(display_name(graph.nodes[other]) + mark)
    return related


def _spelled_out(parent: dict, own: dict) -> bool:
    """Whether the node's own rows already name its parent (the file, or a prefix of the symbol)."""
    name = parent.get("name", "")
    return name == own.get("path") or own.get("name", "").startswith(f"{name}.")


def display_name(data: dict) -> str:
    """The last two name segments (`Class.method`): short, yet distinct enough to read."""
    name = data["name"]
    if data["kind"] == "FILE":
        return name
    return ".".join(name.split(".")[-2:])
