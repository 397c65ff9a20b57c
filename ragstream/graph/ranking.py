"""Re-ranking retrieval hits with the dependency graph: a hit that the other hits' code calls,
defines or inherits from rises, and so does a node no search found but the best hits point to.

Personalised PageRank restarts at the top `seeds` hits in proportion to their retrieval score
and runs over the graph within the expansion limits (depth, edge allowlist, filters), calls weighed
as they run (`personalised_pagerank(as_run=True)`: a site's k possible callees 1/k each, a
module's import-time calls nothing). A node's score is its min-max normalised retrieval score
(0 when no search found it) plus `weight` times its PageRank relative to the best one.
"""
from __future__ import annotations

import networkx as nx

from ragstream.graph.expansion import ExpansionLimits, personalised_pagerank, walk_from
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.index.model import node_of


def graph_reranked(graph: nx.MultiDiGraph, hits: list[tuple[str, float]], filters: RetrievalFilters,
                   limits: ExpansionLimits, seeds: int, weight: float) -> list[tuple[str, float]]:
    """(id, score) best first over the hits and the graph nodes around the top `seeds` hits.
    A split chunk's parts count as their node (its best part's score)."""
    retrieval: dict[str, float] = {}
    for cid, score in hits:
        node = node_of(cid)
        retrieval[node] = max(score, retrieval.get(node, score))
    if not retrieval:
        return []
    low, high = min(retrieval.values()), max(retrieval.values())
    span = (high - low) or 1.0
    base = {n: (s - low) / span for n, s in retrieval.items()}
    top = [n for n in dict.fromkeys(node_of(cid) for cid, _ in hits)][:seeds]
    depth = walk_from(graph, top, filters, limits)
    restart = {n: base[n] + 1e-9 for n in top if n in depth}  # +eps: the lowest seed still restarts
    rank = personalised_pagerank(graph, restart, [n for n in depth if n not in restart], limits,
                                 as_run=True) if restart else {}
    best = max(rank.values(), default=0.0) or 1.0
    scores = {n: base.get(n, 0.0) + weight * rank.get(n, 0.0) / best for n in base.keys() | rank.keys()}
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
