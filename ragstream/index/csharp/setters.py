"""A property set on a loaded entity runs the property's setter: `item.Done = true` raises the
domain event `TodoItem.Done`'s setter raises.

The parser records, on a query call whose result the method keeps and then changes, the names of
the result's own members it assigns (`attrs["call"]["assigned"]`, `calls._changed_results`); the
data edge of that call (`data_access`, same line) says which entity the result is. Each assigned
member that is a property of the entity (or of one of its bases) with code in its setter (the
PROPERTY has CALLS of its own, `accessor` set or init) is linked: CALLS from the method to the PROPERTY,
`resolution="inferred"`, `via="setter"`, `member`, a guess when the data edge is one. A property
with a plain `{ get; set; }` runs nothing and is not linked.
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable


def link_setters(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each assignment of a loaded entity's property to the property, when its setter
    runs code; how many were added."""
    added = 0
    for ref in refs:
        assigned = (ref.attrs.get("call") or {}).get("assigned")
        if not assigned or ref.source not in graph:
            continue
        for _, _, key, data in list(graph.out_edges(ref.source, keys=True, data=True)):
            entity = data.get("entity") or ""
            if key != "READS" or data.get("line") != ref.line or entity not in graph:
                continue
            for name in assigned:
                prop = _setter(graph, symbols, entity, name)
                if prop is not None:
                    added += add_edge(graph, ref.source, prop, "CALLS", {
                        "line": ref.line, "resolution": "inferred", "via": "setter", "member": name,
                        **({"guess": True} if data.get("guess") else {})})
    return added


def _setter(graph: nx.MultiDiGraph, symbols: SymbolTable, entity: str, name: str) -> str | None:
    """The PROPERTY `name` of the entity or its nearest base declaring it, when its setter calls
    something (its own CALLS with `accessor` set or init: a getter's are not the setter's)."""
    for owner in [entity, *sorted(ancestors(graph, entity))]:
        node = symbols.find("csharp", f"{graph.nodes[owner].get('name', '')}.{name}", ("PROPERTY",))
        if node is not None:
            return node.id if any(key == "CALLS" and data.get("accessor") in ("set", "init")
                                  for _, _, key, data in graph.out_edges(node.id, keys=True, data=True)) else None
    return None
