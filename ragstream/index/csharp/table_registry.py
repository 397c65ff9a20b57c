"""Type -> table registries written in code: MAPS_TO from a type to the table a registration
call names.

Micro-ORMs (Dapper table maps, the Sonarr family's `Mapper.Entity<History>("History")`) register
an entity's table with a generic call taking the table's name as its one string literal. A call
`X.M<T>("name")` whose `T` is a type of the repository and whose literal names a TABLE or VIEW of
the graph (by SQL or migration, schema aside, case aside) maps `T` to that table: MAPS_TO attrs
`via="registry"`, `mapped_by` (the calling method), `resolution="inferred"`, `guess` (the link
rests on the call's shape alone). A registry registers several types: the member must be called
so for at least two types whose literals name tables (a cache's `Get<Customer>("Customers")`
alone is no registry). Not inside an EF DbContext (its model says more), and not for a type
mapped otherwise already. A literal naming no table (`Log<T>("text")`) maps nothing.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.data_access import entity_tables
from ragstream.index.csharp.table_arguments import tables_by_name
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable


def link_registered_tables(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> Counter:
    """MAPS_TO from each type a registration call names to the table its literal names."""
    tables = tables_by_name(graph)
    by_member: dict[str, list[tuple[Reference, str, str]]] = {}  # member -> (call, type, table)
    for ref in refs:
        call = ref.attrs.get("call") or {}
        literal, arguments = call.get("literal"), call.get("type_arguments") or []
        if not literal or len(arguments) != 1 or ref.source not in graph or _in_db_context(graph, ref.source):
            continue
        found = symbols.first("csharp", arguments[0], ("TYPE",))
        named = tables.get(literal.rsplit(".", 1)[-1].lower(), [])
        if found is not None and len(named) == 1:
            by_member.setdefault(call.get("member", ""), []).append((ref, found.id, named[0]))
    added: Counter = Counter()
    for member, registered in sorted(by_member.items()):
        if len({entity for _, entity, _ in registered}) < 2:
            continue  # one type named once: a cache key or a route, not a registry
        for ref, entity, table in registered:
            if entity_tables(graph, entity):
                continue
            added["MAPS_TO"] += add_edge(graph, entity, table, "MAPS_TO", {
                "line": ref.line, "resolution": "inferred", "via": "registry", "mapped_by": ref.source,
                "registry": member, "guess": True})
    return added


def _in_db_context(graph: nx.MultiDiGraph, method: str) -> bool:
    """Whether the method's declaring type is an EF DbContext (by the `ef_role` its node has)."""
    owner = graph.nodes[method].get("parent")
    return (graph.nodes.get(owner, {}).get("attrs") or {}).get("ef_role") == "dbcontext"
