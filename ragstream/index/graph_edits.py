"""Adding to the dependency graph: one edge per (source, target, type), the first one's
attributes kept, and one EXTERNAL node per name. The linkers that add edges as they resolve
(references, Python calls, dispatch) all add through these."""
from __future__ import annotations

import networkx as nx

from ragstream.index.model import Node, node_id


def add_edge(graph: nx.MultiDiGraph, source: str, target: str, edge_type: str,
             attrs: dict | None = None) -> bool:
    """One edge per (source, target, type); the first one's attributes are kept. Whether this
    call added it (a linker counts what it added)."""
    if graph.has_edge(source, target, key=edge_type):
        return False
    graph.add_edge(source, target, key=edge_type, type=edge_type, **(attrs or {}))
    return True


def external_node(graph: nx.MultiDiGraph, language: str, name: str) -> str:
    """The EXTERNAL node standing for `name` outside the repository, added once."""
    external = node_id(language, name, "EXTERNAL")
    if external not in graph:
        graph.add_node(external, **vars(Node(id=external, kind="EXTERNAL", language=language, name=name)))
    return external


MAX_CANDIDATES = 8  # an edge names this many of the targets one call may run; more are counted


def named_candidates(targets: list[str]) -> dict:
    """`candidates`: the targets one call may run, the first MAX_CANDIDATES of them (a call that
    may run a hundred implementations would copy the hundred onto each of its hundred edges),
    and `candidate_count` when there are more."""
    return {"candidates": targets[:MAX_CANDIDATES], **({"candidate_count": len(targets)}
                                                        if len(targets) > MAX_CANDIDATES else {})}
