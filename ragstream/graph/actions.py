"""The graph actions on a `SuperPrompt`: expand around the seeds, then fetch texts in a budget.

They read the state's seeds, scope and filters and write only the graph fields and
`node_texts` (plus the node-text accounting under `budget["node_texts"]`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

from ragstream.graph.guesses import graph_for
from ragstream.graph.expansion import expand_dependency_tree, limits_from_settings
from ragstream.graph.node_texts import budget_from, fetch_node_texts, resolved_mode
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.types import RetrievalBackend, check_scope
from ragstream.index.model import PART_MARK, node_of
from ragstream.super_prompt import SuperPrompt
from ragstream.token_count import TokenCounter


def expand_graph(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any],
                 settings: Mapping[str, Any]) -> str:
    """Writes graph_seed_nodes, graph_expanded_nodes (seeds first), graph_edges and graph_debug
    (with each node's depth and parent); returns the outcome (`ok`, `no_seeds`, `limit_reached`)."""
    check_scope(sp.repository, sp.branch)
    limits = limits_from_settings(step, settings, step.get("id", "expand"))
    filters = RetrievalFilters.parse(sp.retrieval_filters)
    graph = graph_for(backend.graph(sp.repository, sp.branch, filters, sp.active_index), settings)
    # What the relate stage found in the graph goes before the search's seeds.
    seeds = list(dict.fromkeys(node_of(s) for s in [*sp.views_by_stage.get("relate", []), *sp.retrieval_seed_nodes]))
    result = expand_dependency_tree(graph, seeds, filters, limits)
    sp.graph_seed_nodes = result.seeds
    sp.graph_expanded_nodes = result.nodes
    sp.graph_edges = result.edges
    sp.graph_debug = {**result.debug, "depth": result.depth, "parent": result.parent}
    return result.debug["reason"]


def fill_node_texts(sp: SuperPrompt, backend: RetrievalBackend, counter: TokenCounter, step: Mapping[str, Any],
                settings: Mapping[str, Any]) -> str:
    """Writes node_texts from graph_expanded_nodes (else graph_seed_nodes) inside the budget, in
    the prioritisation mode's order (`auto` resolved by whether relate answered from the graph)."""
    budget = budget_from(step, settings, step.get("id", "fetch_node_texts"))
    mode = step.get("prioritization_mode", settings.get("prioritization_mode", "balanced"))
    graph_answered = bool(sp.extras.get("relations", {}).get("answer"))
    candidates = sp.graph_expanded_nodes or sp.graph_seed_nodes
    filters = RetrievalFilters.parse(sp.retrieval_filters)
    scope = {"repository": sp.repository, "branch": sp.branch,
             "retrieval_filters": filters, "active_index": sp.active_index}
    graph = backend.graph(sp.repository, sp.branch, filters, sp.active_index)  # what the caller may see
    texts, accounting = fetch_node_texts(
        candidates, sp.graph_seed_nodes, sp.graph_debug.get("depth", {}), sp.graph_debug.get("parent", {}),
        backend, scope, budget, counter, resolved_mode(mode, graph_answered), _hit_parts(sp),
        declarations_of(graph, candidates))
    sp.node_texts = texts
    sp.budget = {**sp.budget, "node_texts": accounting}
    return "ok" if texts else "no_texts"


def _hit_parts(sp: SuperPrompt) -> dict[str, list[str]]:
    """Node id -> the parts of it (`<node>#p<n>`) the search hit, best first."""
    parts: dict[str, list[str]] = {}
    for hit in sp.retrieval_hits:
        if PART_MARK in hit["id"]:
            parts.setdefault(node_of(hit["id"]), []).append(hit["id"])
    return parts


# Kinds with no chunk of their own, whose declaration line is their evidence.
DECLARED_KINDS = ("PROPERTY", "COLUMN")


def declarations_of(graph: nx.MultiDiGraph, nodes: list[str]) -> dict[str, str]:
    """Node id -> the line that declares it, for the nodes of DECLARED_KINDS among `nodes`."""
    return {n: graph.nodes[n]["signature"] for n in nodes
            if n in graph and graph.nodes[n].get("kind") in DECLARED_KINDS and graph.nodes[n].get("signature")}
