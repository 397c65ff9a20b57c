"""`search_nodes`: how the retrieve stage finds entry points on the state (ids and scores, never
text): a new search clears what every earlier one left, plans its requests from the step, the
route and the caller's filters, and records the hits."""
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


@dataclass(frozen=True)
class SearchPlan:
    """What every search of one retrieval step shares: mode, top_k, filters, rerank."""

    mode: str
    top_k: int
    filters: RetrievalFilters
    rerank: str

    def request(self, sp: SuperPrompt, query: str, extra: RetrievalFilters | None = None,
                top_k: int | None = None) -> SearchRequest:
        filters = self.filters.narrowed_by(extra) if extra else self.filters
        return SearchRequest(self.mode, query, top_k or self.top_k, sp.repository, sp.branch, filters,
                             sp.active_index, self.rerank)


def clear_retrieval(sp: SuperPrompt) -> None:
    """A new search invalidates every retrieval, graph and text field."""
    for name in RETRIEVAL_FIELDS + GRAPH_FIELDS + TEXT_FIELDS:
        setattr(sp, name, field_default(name))


def plan_search(sp: SuperPrompt, step: dict[str, Any], pipeline_settings: dict[str, Any],
                extra_filters: RetrievalFilters | None = None) -> SearchPlan:
    """top_k from the step, else the pipeline settings; mode from the step, else the route;
    the caller's filters, only ever narrowed."""
    top_k = step.get("top_k", pipeline_settings.get("top_k"))
    if top_k is None:
        raise RetrievalError("top_k is set neither on the step nor in the pipeline settings",
                             where=f"step {step.get('id', '?')}: top_k")
    mode = step.get("mode") or sp.retrieval_mode
    if not mode:
        raise RetrievalError("no retrieval mode: the route stage sets one, or the step names it",
                             where=f"step {step.get('id', '?')}: mode")
    filters = RetrievalFilters.parse(sp.retrieval_filters)
    if extra_filters:
        filters = filters.narrowed_by(extra_filters)
    return SearchPlan(mode, top_k, filters, step.get("rerank", sp.rerank))


def record_hits(sp: SuperPrompt, hits: list[dict[str, Any]], seeds: int | None = None) -> None:
    """`retrieval_hits` (id, score, rank, sources) and `retrieval_seed_nodes` (the first `seeds`
    of them, all by default) in rank order."""
    sp.retrieval_hits = hits
    sp.retrieval_seed_nodes = [h["id"] for h in hits[:seeds]]


def search_nodes(sp: SuperPrompt, backend: RetrievalBackend, step: dict[str, Any],
                 pipeline_settings: dict[str, Any], query: str | None = None,
                 parse_query: bool = False) -> SuperPrompt:
    """Search for entry points and record them on the state: clear, plan, search, record.
    Filters from a parsed payload can only narrow `sp.retrieval_filters`."""
    clear_retrieval(sp)
    raw = sp.retrieval_query if query is None else query
    parsed = parse_router_payload(raw) if parse_query else ParsedQuery(raw, RetrievalFilters())
    if not parsed.query.strip():
        raise RetrievalError("the query is empty", where="search_nodes.query")
    plan = plan_search(sp, step, pipeline_settings, parsed.extra_filters)
    response = backend.search(plan.request(sp, parsed.query))
    record_hits(sp, [{"id": h.id, "score": h.score, "rank": h.rank, "sources": dict(h.sources)}
                     for h in response.hits])
    return sp
