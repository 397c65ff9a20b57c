"""A type's direct bases in the graph, in the order every walk up the hierarchy takes them."""
from __future__ import annotations

import networkx as nx

BASE_EDGES = ("INHERITS", "IMPLEMENTS")


def direct_bases(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    """The types `type_id` inherits from or implements, in the order of `sorted(out_edges)` (by
    target, then edge type; a base both inherited and implemented comes twice). Read from the
    adjacency dict itself, each target's edge types looked up, not iterated: a type's CONTAINS
    and CALLS edges far outnumber its bases, and the walks up the hierarchy run per call and per
    property read (networkx's views cost a Python call per edge)."""
    successors = graph._succ.get(type_id, {})  # type: ignore[attr-defined]
    return [base for base, _ in sorted((base, key) for base, keys in successors.items()
                                       for key in BASE_EDGES if key in keys)]
