"""Search, expand and fetch in one call: the evidence around a question, for the CLI and UI."""
from __future__ import annotations

from dataclasses import dataclass

from ragstream.config import Settings
from ragstream.graph.expansion import Expansion, expand_dependency_tree, limits_from_settings
from ragstream.graph.node_texts import budget_from, fetch_node_texts
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.types import SearchRequest
from ragstream.tokens import token_counter

# Steps name the settings they read; these are the names the `graph` section provides.
EXPAND_PARAMS = {"max_depth_from_settings": "max_depth", "max_nodes_from_settings": "max_nodes",
                 "edge_allowlist_from_settings": "edge_allowlist"}


@dataclass
class Neighbourhood:
    expansion: Expansion
    node_texts: list[dict]
    accounting: dict


def neighbourhood(backend: LocalBackend, request: SearchRequest, settings: Settings,
                  budget_tokens: int | None = None) -> Neighbourhood:
    graph_settings = vars(settings.graph)
    seeds = [hit.id.split("#p")[0] for hit in backend.search(request).hits]  # parts -> their node
    graph = backend.graph(request.repository, request.branch, request.active_index)
    limits = limits_from_settings(EXPAND_PARAMS, graph_settings, "expand")
    expansion = expand_dependency_tree(graph, seeds, request.retrieval_filters, limits)
    params = {"budget_tokens": budget_tokens} if budget_tokens else {}
    budget = budget_from(params, graph_settings, "fetch_node_texts")
    scope = {"repository": request.repository, "branch": request.branch,
             "retrieval_filters": request.retrieval_filters, "active_index": request.active_index}
    texts, accounting = fetch_node_texts(expansion.nodes, expansion.seeds, expansion.depth, expansion.parent,
                                         backend, scope, budget, token_counter(settings.tokens.encoding),
                                         settings.graph.prioritization_mode)
    return Neighbourhood(expansion, texts, accounting)
