"""`search_nodes`: the action stages call to find entry points. Ids and scores, never text."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from ragstream.errors import RetrievalError
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.types import RetrievalBackend, SearchRequest
from ragstream.super_prompt import GRAPH_FIELDS, RETRIEVAL_FIELDS, TEXT_FIELDS, SuperPrompt, field_default


@dataclass(frozen=True)
class ParsedQuery:
    query: str
    extra_filters: RetrievalFilters


def parse_router_payload(payload: str) -> ParsedQuery:
    """A router's payload: plain text, or a JSON-ish mapping `{query: ..., filters: {...}}`
    (strict JSON first, then YAML's flow syntax for single quotes and bare keys)."""
    text = payload.strip()
    if not text.startswith("{"):
        return ParsedQuery(text, RetrievalFilters())
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise RetrievalError(f"router payload is neither JSON nor YAML: {exc}", where="query") from exc
    if not isinstance(data, dict) or set(data) - {"query", "filters"}:
        raise RetrievalError("router payload must be a mapping with `query` and optional `filters`",
                             where="query")
    return ParsedQuery(str(data.get("query") or ""), RetrievalFilters.parse(data.get("filters")))


def search_nodes(sp: SuperPrompt, backend: RetrievalBackend, step: dict[str, Any],
                 pipeline_settings: dict[str, Any], query: str | None = None,
                 parse_query: bool = False) -> SuperPrompt:
    """Search for entry points and record them on the state.

    Clears every retrieval, graph and text field first (a new search invalidates them), then
    writes `retrieval_hits` (id, score, rank, sources) and `retrieval_seed_nodes` (ids in rank
    order). Filters from a parsed payload can only narrow `sp.retrieval_filters`.
    """
    for name in RETRIEVAL_FIELDS + GRAPH_FIELDS + TEXT_FIELDS:
        setattr(sp, name, field_default(name))
    raw = sp.retrieval_query if query is None else query
    parsed = parse_router_payload(raw) if parse_query else ParsedQuery(raw, RetrievalFilters())
    if not parsed.query.strip():
        raise RetrievalError("the query is empty", where="search_nodes.query")
    top_k = step.get("top_k", pipeline_settings.get("top_k"))
    if top_k is None:
        raise RetrievalError("top_k is set neither on the step nor in the pipeline settings",
                             where=f"step {step.get('id', '?')}: top_k")
    mode = step.get("mode") or sp.retrieval_mode
    if not mode:
        raise RetrievalError("no retrieval mode: the route stage sets one, or the step names it",
                             where=f"step {step.get('id', '?')}: mode")
    filters = RetrievalFilters.parse(sp.retrieval_filters).narrowed_by(parsed.extra_filters)
    request = SearchRequest(mode, parsed.query, top_k,
                            sp.repository, sp.branch, filters, sp.active_index, step.get("rerank", sp.rerank))
    response = backend.search(request)
    sp.retrieval_hits = [{"id": h.id, "score": h.score, "rank": h.rank, "sources": dict(h.sources)}
                         for h in response.hits]
    sp.retrieval_seed_nodes = [h.id for h in response.hits]
    return sp

