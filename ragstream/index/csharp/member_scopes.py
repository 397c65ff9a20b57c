"""The types whose members a name inside a type may be: the type itself (every part of it), then
its enclosing types and its bases, nearest first (C# member lookup, simplified: a nearer
declaration hides a farther one)."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import networkx as nx

MAX_HOPS = 8  # how far up the bases and enclosing types a member is looked for


def member_scopes(graph: nx.MultiDiGraph, type_id: str | None) -> Iterator[str]:
    """`type_id`, then its enclosing types and bases (INHERITS), breadth-first."""
    if type_id is None:
        return
    seen, queue = {type_id}, deque([(type_id, 0)])
    while queue:
        current, depth = queue.popleft()
        yield current
        if depth >= MAX_HOPS or current not in graph:
            continue
        outer = graph.nodes[current].get("parent")
        bases = [target for _, target, key in graph.out_edges(current, keys=True) if key == "INHERITS"]
        for found in (*bases, outer):
            if isinstance(found, str) and found not in seen and graph.nodes.get(found, {}).get("kind") == "TYPE":
                seen.add(found)
                queue.append((found, depth + 1))
