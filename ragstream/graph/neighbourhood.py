"""Search, expand and fetch in one call, through the same actions a pipeline runs."""
from __future__ import annotations

from ragstream.config import Settings
from ragstream.graph.actions import expand_graph, fetch_texts
from ragstream.retrieval.local_backend import LocalBackend
from ragstream.retrieval.search_nodes import search_nodes
from ragstream.retrieval.types import SearchRequest
from ragstream.super_prompt import SuperPrompt
from ragstream.tokens import token_counter

# Steps name the settings they read; these are the names the `graph` section provides.
EXPAND_STEP = {"id": "expand", "max_depth_from_settings": "max_depth",
               "max_nodes_from_settings": "max_nodes", "edge_allowlist_from_settings": "edge_allowlist"}


def neighbourhood(backend: LocalBackend, request: SearchRequest, settings: Settings,
                  budget_tokens: int | None = None) -> SuperPrompt:
    """A state holding the request's hits, their graph neighbourhood and the node texts."""
    sp = SuperPrompt(repository=request.repository, branch=request.branch, active_index=request.active_index,
                     retrieval_filters=request.retrieval_filters.as_dict(), retrieval_mode=request.search_type,
                     retrieval_query=request.query, rerank=request.rerank)
    graph_settings = vars(settings.graph)
    search_nodes(sp, backend, {"id": "retrieve", "top_k": request.top_k}, graph_settings)
    expand_graph(sp, backend, EXPAND_STEP, graph_settings)
    fetch_step = {"id": "fetch_node_texts", **({"budget_tokens": budget_tokens} if budget_tokens else {})}
    fetch_texts(sp, backend, token_counter(settings.tokens.encoding), fetch_step, graph_settings)
    return sp
