"""`expand_dependency_tree`: the graph neighbourhood of the retrieval seeds, within limits.

A breadth-first walk from the seeds over allowed edge types (each in its configured
directions), never into EXTERNAL or namespace nodes and never into or through a node the
caller's filters hide. When more nodes are reachable than `max_nodes` allows, the kept ones are the most
relevant: personalised PageRank from the seeds over the reached subgraph (ties by depth, then
id), the way aider ranks a repository map.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ragstream.errors import PipelineError
from ragstream.index.model import EDGE_TYPES, not_walked, runs_around
from ragstream.retrieval.filters import RetrievalFilters

DIRECTIONS = ("out", "in", "both")
SKIPPED_KINDS = frozenset({"EXTERNAL", "NAMESPACE"})
PARAMETERS = ("max_depth_from_settings", "max_nodes_from_settings", "edge_allowlist_from_settings")


@dataclass(frozen=True)
class ExpansionLimits:
    max_depth: int
    max_nodes: int  # seeds included
    edges: Mapping[str, str]  # edge type -> out | in | both


@dataclass
class Expansion:
    seeds: list[str]
    nodes: list[str]  # seeds first (rank order), then graph nodes by depth, then id
    depth: dict[str, int]
    parent: dict[str, str | None]  # best-effort parent on a shortest path from a seed
    edges: list[dict[str, str]]
    debug: dict[str, Any] = field(default_factory=dict)


def limits_from_settings(params: Mapping[str, Any], settings: Mapping[str, Any], step: str) -> ExpansionLimits:
    """The limits named by the step's `*_from_settings` parameters; every gap is an error."""
    values = {}
    for param in PARAMETERS:
        key = params.get(param)
        if not key:
            raise PipelineError(f"parameter {param} is missing: limits come only from settings",
                                where=f"step {step}: {param}")
        if key not in settings:
            raise PipelineError(f"settings have no key {key!r} (named by {param})", where=f"step {step}: {param}")
        values[param] = settings[key]
    depth, nodes, allow = values.values()
    for name, value in (("max_depth", depth), ("max_nodes", nodes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "max_depth" else 1):
            raise PipelineError(f"{name} must be an int >= {0 if name == 'max_depth' else 1}, got {value!r}",
                                where=f"step {step}: {params[name + '_from_settings']}")
    edges = {t: "both" for t in allow} if isinstance(allow, list) else dict(allow or {})
    for edge_type, direction in edges.items():
        if edge_type not in EDGE_TYPES or direction not in DIRECTIONS:
            raise PipelineError(f"edge allowlist entry {edge_type}: {direction} is invalid; types {EDGE_TYPES}, "
                                f"directions {DIRECTIONS}", where=f"step {step}: {params['edge_allowlist_from_settings']}")
    return ExpansionLimits(depth, nodes, edges)


def expand_dependency_tree(graph: nx.MultiDiGraph, seeds: list[str], filters: RetrievalFilters,
                           limits: ExpansionLimits) -> Expansion:
    """Walk out from the seeds; keep at most `limits.max_nodes` nodes, the most relevant."""
    visible_seeds = [s for s in dict.fromkeys(seeds) if _walkable(graph, s, filters)]
    if not visible_seeds:
        return Expansion([], [], {}, {}, [], _debug(0, 0, 0, False, "no_seeds"))
    depth, parent = _walk(graph, visible_seeds, filters, limits)
    kept_seeds = visible_seeds[: limits.max_nodes]
    reached = [n for n in depth if n not in visible_seeds]
    room = limits.max_nodes - len(kept_seeds)
    truncated = len(reached) > room or len(kept_seeds) < len(visible_seeds)
    if len(reached) > room:
        reached = _most_relevant(graph, kept_seeds, reached, depth, limits, room)
    weight = specificity(graph, kept_seeds, reached, depth, limits)
    graph_nodes = repeats_last(graph, kept_seeds, sorted(reached, key=lambda n: (depth[n], -round(weight[n], 12), n)),
                               depth)
    nodes = kept_seeds + graph_nodes
    kept = set(nodes)
    parents = {n: None for n in kept_seeds} | {n: _kept_parent(graph, n, parent, depth, kept, limits)
                                               for n in graph_nodes}
    edges = _edges_among(graph, kept, limits)
    reason = "limit_reached" if truncated else "ok"
    return Expansion(kept_seeds, nodes, {n: depth[n] for n in nodes}, parents, edges,
                     _debug(len(kept_seeds), len(graph_nodes), len(edges), truncated, reason))


def _walk(graph, seeds, filters, limits) -> tuple[dict[str, int], dict[str, str]]:
    depth = {s: 0 for s in seeds}
    parent: dict[str, str] = {}
    queue = deque(seeds)
    while queue:
        node = queue.popleft()
        if depth[node] >= limits.max_depth:
            continue
        for neighbour in _neighbours(graph, node, limits):
            if neighbour not in depth and _walkable(graph, neighbour, filters):
                depth[neighbour] = depth[node] + 1
                parent[neighbour] = node
                queue.append(neighbour)
    return depth, parent


def _neighbours(graph: nx.MultiDiGraph, node: str, limits: ExpansionLimits) -> list[str]:
    """The node's neighbours along the allowed edges; not the code run around every save or
    request (`runs_around`: one interceptor is a neighbour of every handler that saves), nor the
    method registering a type (`not_walked`)."""
    found = set()
    for _, target, edge_type, data in graph.out_edges(node, keys=True, data=True):
        if limits.edges.get(edge_type) in ("out", "both") and not not_walked(data):
            found.add(target)
    for source, _, edge_type, data in graph.in_edges(node, keys=True, data=True):
        if limits.edges.get(edge_type) in ("in", "both") and not not_walked(data):
            found.add(source)
    found.discard(node)
    return sorted(found)  # deterministic discovery order, hence deterministic parents


def _degree(graph: nx.MultiDiGraph, node: str) -> int:
    """How many nodes an edge joins the node to, the code run around saves and requests left out."""
    return len({t for _, t, d in graph.out_edges(node, data=True) if not not_walked(d)}
               | {s for s, _, d in graph.in_edges(node, data=True) if not not_walked(d)})


def _walkable(graph: nx.MultiDiGraph, node: str, filters: RetrievalFilters) -> bool:
    """In the graph, not EXTERNAL, not a namespace, and visible under the filters (or it is not
    walked through). One namespace node is shared by every file declaring it: walking through it
    would make neighbours of unrelated files."""
    if node not in graph:
        return False
    data = graph.nodes[node]
    if data.get("kind") in SKIPPED_KINDS:
        return False
    acl = data.get("acl") or {}
    return filters.allows(acl.get("acl_tags", ()), acl.get("classification_labels", ()), data.get("path", ""),
                          data.get("kind", ""), data.get("language", ""))


def _most_relevant(graph, seeds, reached, depth, limits, room) -> list[str]:
    """Personalised PageRank from the seeds over the reached subgraph; ties by depth, then id."""
    if room <= 0:
        return []
    rank = personalised_pagerank(graph, {s: 1.0 for s in seeds}, reached, limits)
    return sorted(reached, key=lambda n: (-round(rank[n], 12), depth[n], n))[:room]


def personalised_pagerank(graph, seeds: Mapping[str, float], reached: list[str],
                          limits: ExpansionLimits, as_run: bool = False) -> dict[str, float]:
    """PageRank restarting at the seeds (in proportion to their weights) over the subgraph of
    the seeds and `reached`, along the allowed edges. `as_run`: calls weigh as the code runs
    them -- a site with k possible callees (an interface's implementations, a method's
    overrides, ambiguous overloads) 1/k on each, as one call runs one of them, and a module's own
    calls nothing: they run once, at import, to decorate, register or build its definitions,
    and would make the module the hub of every function it touches."""
    sub: nx.DiGraph = nx.DiGraph()
    sub.add_nodes_from([*seeds, *reached])
    members = set(sub)
    for node in members:
        for neighbour in _neighbours(graph, node, limits):
            if neighbour in members:
                weight = _run_weight(graph, node, neighbour, limits) if as_run else 1.0
                if weight:
                    sub.add_edge(node, neighbour, weight=weight)
    # Each iteration shrinks the error by alpha: small subgraphs need ~110 iterations to reach tol.
    return nx.pagerank(sub, alpha=0.85, personalization=dict(seeds), tol=1e-8, max_iter=500)


def _run_weight(graph, node: str, neighbour: str, limits: ExpansionLimits) -> float:
    """The strongest allowed edge between the two: 1 for any edge but CALLS, 1/k for a call
    from a site (caller, line) with k callees, 0 for a module's import-time call."""
    best = 0.0
    for caller, callee in ((node, neighbour), (neighbour, node)):
        for key, data in (graph.get_edge_data(caller, callee) or {}).items():
            if key not in limits.edges or not_walked(data) \
                    or (key == "CALLS" and graph.nodes[caller].get("kind") == "MODULE"):
                continue
            if key != "CALLS" or data.get("line") is None:
                return 1.0
            site = sum(1 for _, _, k, d in graph.out_edges(caller, keys=True, data=True)
                       if k == "CALLS" and d.get("line") == data["line"] and not runs_around(d))
            best = max(best, 1.0 / site)
    return best


def specificity(graph, seeds: list[str], reached: list[str], depth: Mapping[str, int],
                limits: ExpansionLimits) -> dict[str, float]:
    """How specifically each reached node belongs to the seeds: the summed weight of the nodes one
    level closer that reach it (a seed weighs 1/sqrt(1 + rank)), divided by 1 + its degree.

    That is a lift, as in pointwise mutual information: how much likelier a node is next to the
    seeds than next to anything. A hub that every method calls (a data-access helper, a logger,
    each overload of an ambiguous call) touches the seeds as surely as the method only they call,
    but says far less about them. PageRank does the opposite and favours hubs; dividing by
    log(degree) alone still let a hub next to every seed win (measured in docs/EVALUATION.md).
    """
    weight = {s: 1.0 / math.sqrt(1 + i) for i, s in enumerate(seeds)} | {n: 0.0 for n in reached}
    members = set(reached)
    for node in sorted([*seeds, *reached], key=lambda n: depth[n]):  # parents settle before children
        if node in members:
            weight[node] /= (1 + _degree(graph, node))
        for neighbour in _neighbours(graph, node, limits):
            if neighbour in members and depth[neighbour] == depth[node] + 1:
                weight[neighbour] += weight[node]
    return weight


def repeats_last(graph, seeds: list[str], ordered: list[str], depth: Mapping[str, int]) -> list[str]:
    """`ordered` with, inside each depth, the nodes that say less after the others: a declaration
    whose implementation was reached (the interface member a call dispatched through: the
    implementation has the body, the declaration only its signature), then the nodes that repeat
    a name already placed (another overload of a method, the same table in a template schema)
    after the first of each name."""
    seen = {name_key(graph, s) for s in seeds}
    repeat = {}
    for node in ordered:
        key = name_key(graph, node)
        repeat[node] = key in seen
        seen.add(key)
    declared = _declarations_of(graph, set(seeds) | set(ordered))
    # stable: the given order within
    return sorted(ordered, key=lambda n: (depth[n], n in declared, repeat[n]))


def _declarations_of(graph, nodes: set[str]) -> set[str]:
    """The nodes that a dispatched call among `nodes` went through (its `via`) to another of them."""
    return {data["via"] for node in nodes for _, target, key, data in graph.out_edges(node, keys=True, data=True)
            if key == "CALLS" and data.get("via") in nodes and target in nodes}


def name_key(graph, node: str) -> tuple[str, str]:
    """A method without its parameter list; a SQL object without its schema (a column with its
    table: `Orders.CustomerID` is not `Customers.CustomerID`)."""
    data = graph.nodes[node]
    name = data.get("name", node)
    if data.get("language") == "sql":
        kept = 2 if data.get("kind") == "COLUMN" else 1
        return data.get("kind", ""), ".".join(name.lower().split(".")[-kept:])
    return data.get("kind", ""), name.split("(", 1)[0]


def walk_from(graph: nx.MultiDiGraph, seeds: list[str], filters: RetrievalFilters,
              limits: ExpansionLimits) -> dict[str, int]:
    """Depth of every node within `limits.max_depth` of the visible seeds (seeds at 0)."""
    visible = [s for s in dict.fromkeys(seeds) if _walkable(graph, s, filters)]
    return _walk(graph, visible, filters, limits)[0] if visible else {}


def _kept_parent(graph, node, parent, depth, kept, limits) -> str | None:
    """The walk's parent if kept, else a kept neighbour one level closer to the seeds."""
    if parent.get(node) in kept:
        return parent[node]
    closer = [n for n in _neighbours(graph, node, limits) if n in kept and depth.get(n, 99) < depth[node]]
    return min(closer, key=lambda n: (depth[n], n)) if closer else None


def _edges_among(graph: nx.MultiDiGraph, kept: set[str], limits: ExpansionLimits) -> list[dict[str, str]]:
    edges = [{"from_id": u, "to_id": v, "edge_type": k}
             for u in kept for _, v, k in graph.out_edges(u, keys=True)
             if v in kept and k in limits.edges and u != v]
    return sorted(edges, key=lambda e: (e["from_id"], e["to_id"], e["edge_type"]))


def _debug(seeds: int, expanded: int, edges: int, truncated: bool, reason: str) -> dict[str, Any]:
    return {"seed_count": seeds, "expanded_count": expanded, "edges_count": edges,
            "truncated": truncated, "reason": reason}
