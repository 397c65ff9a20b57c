"""The retrieval configurations an evaluation compares, each turning a query into ranked ids.

`bm25`, `semantic`, `hybrid`: one backend search. `hybrid+rerank`: the hybrid candidates
rescored by the keyword reranker (the deterministic reranker; the backend reranks semantic
searches only). `hybrid+graph`: the hybrid hits re-ranked with personalised PageRank from
the base pipeline's `top_k` best hits, within its depth and edge limits (`graph/ranking.py`). `pipeline:<name>`: the
named pipeline run through the Engine until its expand step has run (normalize, route,
retrieve, rerank, expand), ranked as rerank's kept seeds, then the other retrieval hits, then
the graph nodes no search found (expansion adds context; it does not rank). `ask:<name>`: the
named pipeline run whole, as `ragstream ask` runs it, ranked as what its answer cites, then the
rest of its final context, then the other retrieval hits (`eval/ranked_nodes.py`): the only
configuration in which the graph's context and answers count.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragstream.controller import Controller, Scope
from ragstream.errors import ConfigError
from ragstream.eval.names import BASIC
from ragstream.eval.ranked_nodes import ranked_nodes
from ragstream.graph.expansion import limits_from_settings
from ragstream.graph.ranking import graph_reranked
from ragstream.pipeline.engine import Engine
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.rerankers import KeywordReranker
from ragstream.retrieval.types import SearchRequest

GRAPH_PIPELINE = "base"  # whose graph limits hybrid+graph uses
PIPELINE_PREFIX = "pipeline:"
ASK_PREFIX = "ask:"
LAST_PIPELINE_ACTION = "expand"


def check_configs(names: list[str]) -> list[str]:
    """The configuration names, each known (a pipeline name is checked when it is loaded)."""
    if not names:
        raise ConfigError("no configuration to evaluate", where="--configs")
    for name in names:
        if name not in BASIC and not any(name.startswith(p) and name[len(p):] for p in (PIPELINE_PREFIX, ASK_PREFIX)):
            raise ConfigError(f"unknown configuration {name!r}; choose from {', '.join(BASIC)}, "
                              "pipeline:<name> or ask:<name>", where="--configs")
    return names


@dataclass
class Ranker:
    """Ranks a query's chunk and node ids under one configuration, in one index."""

    controller: Controller
    scope: Scope
    top_k: int  # candidates asked of each search

    def ranked_ids(self, config: str, query: str) -> list[str]:
        if config.startswith(PIPELINE_PREFIX):
            return self._pipeline(config[len(PIPELINE_PREFIX):], query)
        if config.startswith(ASK_PREFIX):
            return self._asked(config[len(ASK_PREFIX):], query)
        runners: dict[str, Callable[[str], list[str]]] = {
            "hybrid+rerank": self._reranked, "hybrid+graph": self._with_graph}
        if config in runners:
            return runners[config](query)
        return [h.id for h in self._search(config, query)]

    def _search(self, mode: str, query: str):
        s = self.scope
        request = SearchRequest(mode, query, self.top_k, s.repository, s.branch,
                                RetrievalFilters.parse(s.retrieval_filters), s.active_index)
        return self.controller.runtime.backend.search(request).hits

    def _reranked(self, query: str) -> list[str]:
        hits = self._search("hybrid", query)
        s = self.scope
        chunks = {c.id: c for c in self.controller.runtime.backend.fetch_chunks(
            [h.id for h in hits], s.repository, s.branch, s.retrieval_filters, s.active_index)}
        hits = [h for h in hits if h.id in chunks]
        retrieval = self.controller.settings.retrieval
        reranker = KeywordReranker(retrieval.keyword_semantic_weight, retrieval.keyword_keyword_weight)
        scores = reranker.scores(query, [chunks[h.id] for h in hits], [h.score for h in hits])
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], hits[i].rank))
        return [hits[i].id for i in order]

    def _with_graph(self, query: str) -> list[str]:
        hits = self._search("hybrid", query)
        pipeline = self.controller.pipeline(GRAPH_PIPELINE)
        step = next((s for s in pipeline.steps.values() if s.action == LAST_PIPELINE_ACTION), None)
        if step is None:
            raise ConfigError(f"pipeline {GRAPH_PIPELINE!r} has no {LAST_PIPELINE_ACTION!r} step, whose graph "
                              "limits hybrid+graph uses", where=f"pipeline {GRAPH_PIPELINE}")
        limits = limits_from_settings(step.params, pipeline.settings, step.id)
        s = self.scope
        filters = RetrievalFilters.parse(s.retrieval_filters)
        graph = self.controller.runtime.backend.graph(s.repository, s.branch, filters, s.active_index)
        ranked = graph_reranked(graph, [(h.id, h.score) for h in hits], filters, limits,
                                pipeline.settings["top_k"], self.controller.settings.retrieval.graph_rank_weight)
        return [node for node, _ in ranked]

    def _pipeline(self, name: str, query: str) -> list[str]:
        pipeline = self.controller.pipeline(name)
        engine = Engine(pipeline, self.controller.runtime)
        sp = engine.start(self.controller.new_state(query, self.scope))
        while sp.stage:
            if engine.step(sp).action == LAST_PIPELINE_ACTION:
                break
        return list(dict.fromkeys([*sp.retrieval_seed_nodes, *(h["id"] for h in sp.retrieval_hits),
                                   *sp.graph_expanded_nodes]))

    def _asked(self, name: str, query: str) -> list[str]:
        sp, _ = self.controller.run(query, self.scope, self.controller.pipeline(name))
        return ranked_nodes(sp)
