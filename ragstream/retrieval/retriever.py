"""Retrieval over an index store: the search modes, fusion and reranking, whatever holds the index.

semantic and bm25 are the store's own rankings (`index_store.IndexStore`); hybrid is the
weighted RRF of both, of the definitions past changes with matching messages touched and of the
code the question names, unnamed exception types' definitions scaled down, lifted by file-level
evidence (`fusion.py`); a reranked search reorders widened semantic candidates (`rerankers.py`).

Security filters are applied by the store before anything is scored: it ranks only visible
chunks, so a filtered search still returns top_k visible hits when they exist. The other
sources read the chunk table through the same filters' row mask, so nothing invisible is ever
ranked, returned, fetched or written to the debug record.
"""
from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from ragstream.config import RetrievalSettings
from ragstream.errors import RetrievalError
from ragstream.index.chunk_table import of_kind
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.fusion import Fused, fuse, ranks_of, scaled, with_file_evidence
from ragstream.retrieval.history_search import HistoryIndex
from ragstream.retrieval.index_store import IndexStore, LoadedIndex
from ragstream.retrieval.mentions import SymbolTable, strength
from ragstream.retrieval.rerankers import reranker_for
from ragstream.retrieval.symptoms import defines_symptom, question_words, symptom_types
from ragstream.retrieval.types import SearchHit, SearchRequest, SearchResponse


class Retriever:
    """The search modes over one store."""

    def __init__(self, store: IndexStore[Any], settings: RetrievalSettings):
        self.store = store
        self.settings = settings
        # The symbol table, exception types and past changes of a generation are built by
        # whichever search needs them first, once.
        self._building = threading.Lock()

    def search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        index = self.store.index(request.repository, request.branch, request.active_index)
        visible = index.visibility.mask(request.retrieval_filters)
        debug: dict = {"search_type": request.search_type, "rerank": request.rerank,
                       "top_k": request.top_k, "visible_rows": int(visible.sum()),
                       "index": f"{request.repository}/{index.stored.location.active_index}"}
        mode, query, top_k, filters = request.search_type, request.query, request.top_k, request.retrieval_filters
        note = index.semantic_note() if mode in ("semantic", "hybrid") else None
        warnings = list(index.visibility.filter_warnings(filters))
        # the hits' headers and the walk after them read the graph: an interim one says so
        if graph := index.graph_note(filtered=filters != RetrievalFilters()):
            warnings.append(graph)
        if note:
            debug["semantic_coverage"] = {k: index.vectors[k]
                                          for k in ("stage", "embedded", "texts", "heads", "chunks")}
            warnings.append(note if mode == "semantic" or index.vectors["embedded"]
                            else "hybrid without its semantic part: " + note)
        if warnings:
            debug["warnings"] = warnings
        if mode != "semantic" and (missing := self.store.keyword_missing(index)) is not None:
            if self.settings.bm25_missing == "fail":
                raise RetrievalError(f"the index has no BM25 files, needed by {mode} search", where=missing,
                                     hint="rebuild the index, or set retrieval.bm25_missing: semantic")
            debug["fallback"] = f"{mode} -> semantic: the BM25 files are missing"
            mode = "semantic"
        if mode == "semantic" and request.rerank != "none":
            hits = self._reranked(index, request, debug)
        elif mode == "semantic":
            hits = _ranked(self.store.semantic(index, query, top_k, filters), "semantic")
        elif mode == "bm25":
            hits = _ranked(self.store.keyword(index, query, top_k, filters), "bm25")
        else:
            hits = self._hybrid(index, request, visible, debug)
        debug["seconds"] = round(time.perf_counter() - started, 4)
        return SearchResponse(hits, debug)

    def _hybrid(self, index: LoadedIndex, request: SearchRequest, visible: np.ndarray,
                debug: dict) -> list[SearchHit]:
        """RRF of semantic, bm25, the definitions past changes with matching messages touched,
        and the code the question names (weighted), unnamed exception types' definitions scaled
        down (listed in the debug record), then each hit lifted by its file's evidence."""
        retrieval = self.settings
        query, filters = request.query, request.retrieval_filters
        # RRF scores depend on how deep each source ranks: a fixed depth keeps the first hits the
        # same whether 8 or 100 are asked (the pipeline's retrieve and a plain search agree).
        depth = max(request.top_k, retrieval.fusion_depth)
        # A keyword-ready index has no vectors yet: the other sources rank alone. (Semantic
        # stays first when present: fusion breaks ties by the first source.)
        rankings = ({"semantic": ranks_of([cid for cid, _ in self.store.semantic(index, query, depth, filters)])}
                    if index.has_vectors() else {})
        rankings["bm25"] = ranks_of([cid for cid, _ in self.store.keyword(index, query, depth, filters)])
        if retrieval.change_history_weight > 0:
            rankings["history"] = ranks_of(self._history(index, query, depth, visible, debug))
        mentions = self._mentions(index, query, depth, visible) if retrieval.mention_weight > 0 else {}
        weights = {"semantic": retrieval.semantic_weight, "bm25": retrieval.bm25_weight,
                   "history": retrieval.change_history_weight, "mentions": retrieval.mention_weight}
        fused = fuse(rankings, retrieval.rrf_k, weights, {"mentions": mentions})
        symptoms = self._unnamed_symptoms(index, request.query, fused) if retrieval.symptom_weight != 1 else set()
        fused = scaled(fused, lambda cid: retrieval.symptom_weight if cid in symptoms else 1.0)
        fused = with_file_evidence(fused, index.path_of, retrieval.file_evidence_weight,
                                   retrieval.file_evidence_chunks, index.node_of)
        hits = [SearchHit(cid, score, rank, sources)
                for rank, (cid, score, sources) in enumerate(fused[:request.top_k], start=1)]
        debug["symptoms_scaled"] = [hit.id for hit in hits if hit.id in symptoms]
        return hits

    def _unnamed_symptoms(self, index: LoadedIndex, query: str, fused: Fused) -> set[str]:
        """The fused ids that define an exception type (or are its methods) the question does
        not name. An error report quotes its exception's message and relatives, so their
        definitions match it by construction -- yet a fix rarely changes them. A type the
        question names is kept: "where is RetrievalError raised" asks about it."""
        with self._building:
            if index.symptoms is None:
                index.symptoms = symptom_types(of_kind(index.chunks, "CLASS", "python"))
        if not index.symptoms:  # the index defines no exception type (no chunk need be read)
            return set()
        named = question_words(query)
        return {cid for cid, _, _ in fused if defines_symptom(index.first_chunk(cid), index.symptoms, named)}

    def _history(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray, debug: dict) -> list[str]:
        """The chunk ids of the best k visible definitions that the past changes whose messages
        match the question touched (a split definition by its first part)."""
        with self._building:
            if index.history is None:
                index.history = HistoryIndex.build(index.stored.change_history() or [])
        if not index.history.changes:
            debug["change_history"] = "none: the index holds no past changes (rebuild it from a git work tree)"
            return []
        debug["change_history"] = f"{len(index.history.changes)} past changes"
        retrieval = self.settings
        ranked = index.history.ranking(query, lambda node: bool(index.visible_rows(visible, node)),
                                       retrieval.change_history_matches, k, retrieval.change_history_half_life)
        return [index.first_chunk(node).id for node, _ in ranked]

    def _mentions(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray) -> dict[str, float]:
        """Strength (0..1) of the best k rows the question names."""
        with self._building:
            if index.symbols is None:
                index.symbols = SymbolTable.build(index.chunks, index.stored_mentions())
        scores = index.symbols.scores(query, visible)
        top = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return {index.ids[row]: strength(score) for row, score in top}

    def _reranked(self, index: LoadedIndex, request: SearchRequest, debug: dict) -> list[SearchHit]:
        reranker = reranker_for(request.rerank, self.settings)
        candidates = self.store.semantic(index, request.query, request.top_k * self.settings.widen_factor,
                                         request.retrieval_filters)
        chunks = [index.first_chunk(cid) for cid, _ in candidates]
        scores = reranker.scores(request.query, chunks, [s for _, s in candidates])
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
        debug["rerank_candidates"] = len(candidates)
        return [SearchHit(candidates[i][0], float(scores[i]), rank, {"semantic": i + 1})
                for rank, i in enumerate(order[:request.top_k], start=1)]


def _ranked(found: list[tuple[str, float]], source: str) -> list[SearchHit]:
    return [SearchHit(cid, score, rank, {source: rank}) for rank, (cid, score) in enumerate(found, start=1)]
