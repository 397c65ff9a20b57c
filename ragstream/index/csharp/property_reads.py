"""Reading a property runs its get accessor (C# spec, "Accessors"): `config.PageRevisions` in a
method runs `get => GetParam(PAGE_REVISIONS, 10)`, so a flow walks the method, the property and
what its getter calls.

The parser records each member read as a value whose receiver's type the syntax states (CALLS
references with attrs `via="property_get"`, `member`; `calls._property_read`); the calls an
accessor makes are the PROPERTY node's own CALLS, attrs `accessor` (`methods.accessor_bodies`).
Here a read is linked, CALLS from the reader to the PROPERTY, `resolution="static"`,
`via="property_get"`, `member`, when the property, declared by the receiver's type or its nearest
base declaring it, has a getter that calls something. An auto-property or a field runs nothing
and is not linked (every `entity.Name` would be an edge).
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import nearest_ancestors
from ragstream.index.csharp.calls import PROPERTY_GET
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable


def is_property_read(ref: Reference) -> bool:
    """A property read: linked here, not as a call."""
    return ref.edge_type == "CALLS" and ref.attrs.get("via") == PROPERTY_GET


def link_property_reads(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each read of a property whose getter has calls to the property; how many were
    added. Repeated while it adds: a getter reading another computed property calls something
    once that read is linked."""
    reads = [ref for ref in refs if is_property_read(ref) and ref.source in graph]
    # each candidate's PROPERTY, found once: the hierarchy walk behind it is the same for every
    # read of `Type.Name` and in every round (only CALLS edges are added here)
    declared: dict[str, str | None] = {}
    total = 0
    while True:
        added = sum(_link(graph, symbols, ref, declared) for ref in reads)
        total += added
        if not added:
            return total


def _link(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference, declared: dict[str, str | None]) -> int:
    prop = next(filter(None, (declared[candidate] if candidate in declared else
                              declared.setdefault(candidate, _declared(graph, symbols, candidate))
                              for candidate in ref.candidates)), None)
    if prop is None or prop == ref.source or not computed_getter(graph, prop):
        return 0
    return add_edge(graph, ref.source, prop, "CALLS", {
        "line": ref.line, "resolution": "static", "via": PROPERTY_GET, "member": ref.attrs["member"],
        **({"accessor": ref.attrs["accessor"]} if "accessor" in ref.attrs else {})})


def _declared(graph: nx.MultiDiGraph, symbols: SymbolTable, candidate: str) -> str | None:
    """The PROPERTY `Type.Name` names, declared by the type or its nearest base declaring it."""
    owner_name, _, member = candidate.rpartition(".")
    owner = symbols.find("csharp", owner_name, ("TYPE",))
    owners = [owner_name] if owner is None else \
        [owner_name, *(graph.nodes[base].get("name", "") for base in nearest_ancestors(graph, owner.id))]
    for name in owners:
        node = symbols.find("csharp", f"{name}.{member}", ("PROPERTY",))
        if node is not None:
            return node.id
    return None


def computed_getter(graph: nx.MultiDiGraph, prop: str) -> bool:
    """Whether the property's get accessor calls something."""
    return any(key == "CALLS" and data.get("accessor") == "get"
               for _, _, key, data in graph.out_edges(prop, keys=True, data=True))
