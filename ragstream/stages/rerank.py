"""Stage 4, rerank: reorder the top retrieval candidates, then gate out what should not go on.

Deterministic path: at most `N2_RERANK_TOP_K` hits are rescored by a blend of their min-max
normalised retrieval score and the share of the query's keywords their text contains (weights
from `retrieval.keyword_*_weight`). The gate then drops, with a reason per id: `empty` (no
keyword at all), `duplicate of <id>` (keyword sets overlapping >= `gate_duplicate_jaccard` with
a chunk ranked above), and `off_topic` (no query keyword and a retrieval score below the
candidates' median). The kept chunks become `base_context_chunks` (unique by id); texts come
through the backend, under the caller's filters.
"""
from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from ragstream.index.keywords import keyword_tokens
from ragstream.retrieval.rerankers import blend, keyword_coverage
from ragstream.retrieval.types import RetrievalBackend
from ragstream.stages.settings import number
from ragstream.super_prompt import SuperPrompt

WRITES = frozenset({"retrieval_seed_nodes", "base_context_chunks", "views_by_stage.rerank", "extras.gate"})
OUTCOMES = ("ok", "no_entry_points")


def run(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    top = number(settings, "N2_RERANK_TOP_K", step)
    jaccard = number(settings, "gate_duplicate_jaccard", step, integer=False, minimum=0)
    weights = (number(settings, "keyword_semantic_weight", step, integer=False, minimum=0),
               number(settings, "keyword_keyword_weight", step, integer=False, minimum=0))
    hits = sp.retrieval_hits[:top]
    chunks = {c.id: c for c in backend.fetch_chunks([h["id"] for h in hits], sp.repository, sp.branch,
                                                     sp.retrieval_filters, sp.active_index)}
    texts = {cid: chunk.text for cid, chunk in chunks.items()}
    query = set(keyword_tokens(sp.retrieval_query))
    words = {h["id"]: set(keyword_tokens(texts.get(h["id"], ""))) for h in hits}
    coverage = [keyword_coverage(query, words[h["id"]]) for h in hits]
    scores = blend([h["score"] for h in hits], coverage, *weights)
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], hits[i]["rank"]))
    median = statistics.median(h["score"] for h in hits) if hits else 0.0
    kept: list[str] = []
    dropped = [{"id": h["id"], "reason": "over N2_RERANK_TOP_K"} for h in sp.retrieval_hits[top:]]
    for i in order:
        node, reason = hits[i]["id"], None
        if not words[node]:
            reason = "empty"
        elif twin := next((k for k in kept if _jaccard(words[node], words[k]) >= jaccard), None):
            reason = f"duplicate of {twin}"
        elif coverage[i] == 0 and hits[i]["score"] < median:
            reason = "off_topic"
        if reason:
            dropped.append({"id": node, "reason": reason})
        else:
            kept.append(node)
    sp.retrieval_seed_nodes = kept
    sp.base_context_chunks = [chunks[node] for node in kept]  # kept ids are unique: so are these
    sp.views_by_stage = {**sp.views_by_stage, "rerank": kept}
    sp.extras = {**sp.extras, "gate": {"dropped": dropped, "path": "deterministic",
                                      "scores": {hits[i]["id"]: round(float(scores[i]), 4) for i in order}}}
    return "ok" if kept else "no_entry_points"


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0

