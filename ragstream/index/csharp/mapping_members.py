"""The properties an object mapping reads through a navigation, found once the graph is built.

`object_mapping` links `.ForMember(d => d.CategoryName, o => o.MapFrom(s => s.Category.CategoryName))`
to `Product.Category` and records the longer path (`member_paths`); the type a navigation holds
is known only across files. Here each path is followed through the properties' types
(`ef_graph.property_type`, a collection's element too): the mapping method also REFERENCES
`Category.CategoryName` (attrs `via="object_mapping"`, `side`, `through`: the navigation
property), so renaming the property finds the mappings that read it. A step whose type or
property the repository does not declare ends the path (no edge to a guess).
"""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.ef_graph import declared_property, edges_of_type, property_type


def link_member_paths(graph: nx.MultiDiGraph) -> int:
    """REFERENCES from mapping methods to the properties their member paths reach; how many."""
    added = 0
    for source, first, _, attrs in edges_of_type(graph, "REFERENCES"):
        if attrs.get("via") != "object_mapping" or not attrs.get("member_paths"):
            continue
        for path in attrs["member_paths"]:
            prop: str | None = first
            for member in path[1:]:
                held = property_type(graph, prop) if prop else None
                through, prop = prop, declared_property(graph, held, member) if held else None
                if prop is None:
                    break
                if not graph.has_edge(source, prop, key="REFERENCES"):
                    graph.add_edge(source, prop, key="REFERENCES", type="REFERENCES", via="object_mapping",
                                   mapping=attrs.get("mapping"), side=attrs.get("side"), through=through,
                                   line=attrs.get("line", 0), resolution="inferred")
                    added += 1
    return added
