"""The local retrieval backend: FAISS (semantic), bm25s (keyword), hybrid (weighted RRF of both,
of the definitions past changes with matching messages touched and of the code the question
names, unnamed exception types' definitions scaled down, lifted by file-level evidence),
rerankers.

Security filters become a row mask before anything is scored: FAISS searches with an id
selector over the windows of visible chunks (a chunk scores by its best window) and BM25
scores with the mask as weights, so a filtered search still returns top_k visible hits when
they exist, and nothing invisible is ever ranked, returned, fetched or written to the debug
record.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import networkx as nx
import numpy as np

from ragstream.config import Settings
from ragstream.errors import IndexLoadError, RetrievalError
from ragstream.gc_pause import gc_paused
from ragstream.index import store
from ragstream.index.embeddings import Embedder
from ragstream.index.fill import stage_of
from ragstream.index.headers import for_caller
from ragstream.keyword_tokens import keyword_tokens
from ragstream.index.search_artifacts import read_bm25, read_faiss
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.fusion import Fused, fuse, ranks_of, scaled, with_file_evidence
from ragstream.retrieval.history_search import HistoryIndex
from ragstream.retrieval.mentions import SymbolTable, strength
from ragstream.retrieval.rerankers import CrossEncoderReranker, KeywordReranker, Reranker
from ragstream.retrieval.symptoms import defines_symptom, question_words, symptom_types
from ragstream.retrieval.types import SearchHit, SearchRequest, SearchResponse, check_scope
from ragstream.retrieval.visibility import Visibility
from ragstream.index.model import Chunk


@dataclass
class LoadedIndex:
    stored: store.StoredIndex
    chunks: list[Chunk]
    rows: dict[str, list[int]]  # chunk id, or node id of a split chunk -> its rows (in order)
    faiss: object  # one vector per semantic window
    window_rows: np.ndarray  # the chunk row of each FAISS vector
    bm25: object | None  # None when the BM25 files are missing
    visibility: Visibility
    graph: nx.MultiDiGraph | None = None  # loaded on first use
    symbols: SymbolTable | None = None  # built on first hybrid search
    symptoms: frozenset[str] | None = None  # the exception types, found on first hybrid search
    history: HistoryIndex | None = None  # the past changes, searchable; built on first hybrid search

    @property
    def vectors(self) -> dict:
        """Stage and coverage of the semantic fill (`index/fill.py`)."""
        return stage_of(self.stored.manifest)

    def has_vectors(self) -> bool:
        """Whether any text is embedded (a keyword-ready index has none yet)."""
        vectors = self.vectors
        return vectors["stage"] == "complete" or bool(vectors["embedded"])

    def semantic_note(self) -> str | None:
        """What a semantic search over this index misses, when it misses anything."""
        vectors = self.vectors
        if vectors["stage"] == "complete":
            return None
        if not vectors["embedded"]:
            return ("no vectors yet: the index is keyword-ready and its semantic fill has embedded nothing, "
                    "so semantic search finds nothing (bm25 works now; `ragstream index --status` shows the fill)")
        return (f"semantic over {vectors['embedded']:,} of {vectors['texts']:,} texts "
                f"({vectors['heads']:,} of {vectors['chunks']:,} chunks): the semantic fill is not complete")


LOAD_ATTEMPTS = 3


class LocalBackend:
    """Serves every index under the data folder, loading each once on first use."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.data_dir = Path(settings.index.data_dir).expanduser().resolve()
        self.embedder = embedder or Embedder(settings.embedding.dtype, settings.embedding.batch_size,
                                             settings.embedding.onnx_below)
        self._indexes: dict[tuple[str, str], LoadedIndex] = {}
        # The workbench serves every browser session from one backend, on several threads:
        # an index, its graph and its symbol table are loaded by whichever comes first, once.
        self._loading = threading.Lock()

    # --- the contract ---------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        index = self._index(request.repository, request.branch, request.active_index)
        visible = index.visibility.mask(request.retrieval_filters)
        debug: dict = {"search_type": request.search_type, "rerank": request.rerank,
                       "top_k": request.top_k, "visible_rows": int(visible.sum()),
                       "index": f"{request.repository}/{index.stored.location.active_index}"}
        mode, query, top_k, filters = request.search_type, request.query, request.top_k, request.retrieval_filters
        note = index.semantic_note() if mode in ("semantic", "hybrid") else None
        if note:
            debug["semantic_coverage"] = {k: index.vectors[k]
                                          for k in ("stage", "embedded", "texts", "heads", "chunks")}
            debug["warnings"] = [note if mode == "semantic" or index.vectors["embedded"]
                                 else "hybrid without its semantic part: " + note]
        if mode != "semantic" and index.bm25 is None:
            if self.settings.retrieval.bm25_missing == "fail":
                raise RetrievalError(f"the index has no BM25 files, needed by {mode} search",
                                     where=str(index.stored.bm25_dir),
                                     hint="rebuild the index, or set retrieval.bm25_missing: semantic")
            debug["fallback"] = f"{mode} -> semantic: the BM25 files are missing"
            mode = "semantic"
        if mode == "semantic" and request.rerank != "none":
            hits = self._reranked(index, request, visible, debug)
        elif mode == "semantic":
            hits = self._ranked(self._semantic(index, query, top_k, visible, filters), "semantic")
        elif mode == "bm25":
            hits = self._ranked(self._bm25(index, query, top_k, visible, filters), "bm25")
        else:
            hits = self._hybrid(index, request, visible, debug)
        debug["seconds"] = round(time.perf_counter() - started, 4)
        return SearchResponse(hits, debug)

    def fetch_texts(self, ids: list[str], repository: str, branch: str,
                    retrieval_filters: RetrievalFilters | dict | None,
                    active_index: str | None = None) -> dict[str, str]:
        """Texts of the ids that exist and are visible in scope; the others are left out. A node
        whose chunk was split gets its parts joined in order."""
        index = self._index(repository, branch, active_index)
        visible = self._fetch_mask(index, ids, RetrievalFilters.parse(retrieval_filters))
        return {cid: "\n".join(index.chunks[r].text for r in rows)
                for cid in ids if (rows := _visible_rows(index, visible, cid))}

    def fetch_chunks(self, ids: list[str], repository: str, branch: str,
                     retrieval_filters: RetrievalFilters | dict | None,
                     active_index: str | None = None) -> list[Chunk]:
        """The chunks of the visible ids, unique by id, in the order asked; a split node comes
        back whole (its parts joined, spanning from the first part's start to the last's end).
        Each header is rendered for the caller: it names only the neighbours its filters allow."""
        index = self._index(repository, branch, active_index)
        filters = RetrievalFilters.parse(retrieval_filters)
        visible = self._fetch_mask(index, ids, filters)
        chunks = []
        for cid in dict.fromkeys(ids):
            rows = _visible_rows(index, visible, cid)
            if rows:
                parts = [index.chunks[r] for r in rows]
                first = parts[0]
                meta = {k: v for k, v in first.metadata.items() if k not in ("parent_chunk", "part", "parts")}
                chunks.append(Chunk(cid, first.path, first.start_line, parts[-1].end_line, first.kind, first.symbol,
                                    "\n".join(p.text for p in parts), meta) if len(parts) > 1 or first.id != cid
                              else first)
        if not chunks:
            return chunks
        graph = self.graph(repository, branch, filters, active_index)
        return [for_caller(chunk, graph, self.settings.chunks.header_max_names) for chunk in chunks]

    def locations(self, ids: list[str], repository: str, branch: str,
                  retrieval_filters: RetrievalFilters | dict | None,
                  active_index: str | None = None) -> dict[str, str]:
        """`path:start-end` of the ids visible in scope (for tables; no text)."""
        index = self._index(repository, branch, active_index)
        visible = self._fetch_mask(index, ids, RetrievalFilters.parse(retrieval_filters))
        spans = {}
        for cid in ids:
            if rows := _visible_rows(index, visible, cid):
                first, last = index.chunks[rows[0]], index.chunks[rows[-1]]
                spans[cid] = f"{first.path}:{first.start_line}-{last.end_line}"
        return spans

    def graph(self, repository: str, branch: str, retrieval_filters: RetrievalFilters | dict | None,
              active_index: str | None = None) -> nx.MultiDiGraph:
        """A read-only view of the index's dependency graph holding only the nodes the filters
        let through (EXTERNAL nodes, which carry no access labels, only when nothing restricts
        access labels or paths, and only while a visible node links to them: a library name only
        hidden code uses is derived from that code). The full graph is loaded once and never
        handed out."""
        index = self._index(repository, branch, active_index)
        with self._loading:
            if index.graph is None:
                with gc_paused():
                    index.graph = nx.freeze(index.stored.graph())  # shared: nobody may change it
        filters = RetrievalFilters.parse(retrieval_filters)
        full = index.graph
        if filters == RetrievalFilters():
            return full  # nothing to hide (a view would only slow every neighbour lookup)
        memo: dict[str, bool] = {}  # a view re-asks for the same nodes while it is walked

        def visible(node: str) -> bool:
            if node not in memo:
                data = full.nodes[node]
                memo[node] = _node_visible(data, filters) and (
                    data.get("kind") != "EXTERNAL" or any(visible(n) for n in _code_neighbours(full, node)))
            return memo[node]

        return nx.subgraph_view(full, filter_node=visible)

    def _fetch_mask(self, index: LoadedIndex, ids: list[str], filters: RetrievalFilters) -> np.ndarray:
        """The rows a fetch of `ids` may return (an engine backend asks the engine)."""
        return index.visibility.mask(filters)

    # --- modes ----------------------------------------------------------------------------

    def _semantic(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray,
                  filters: RetrievalFilters) -> list[tuple[str, float]]:
        """The best k visible chunks, each scored by its best window (MaxP). (`visible` is the
        mask of `filters`; an engine that filters itself reads `filters`.)"""
        import faiss

        k = min(k, int(visible.sum()))
        if k == 0 or index.faiss.ntotal == 0:  # nothing visible, or no vector embedded yet
            return []
        vector = self.embedder.encode([query])
        windows_visible = visible[index.window_rows]
        params = None
        if not windows_visible.all():
            bitmap = np.packbits(windows_visible, bitorder="little")
            params = faiss.SearchParameters(sel=faiss.IDSelectorBitmap(len(windows_visible), faiss.swig_ptr(bitmap)))
        total = int(windows_visible.sum())
        wanted = min(total, k * 2)  # most chunks have one window: a little headroom is usually enough
        while True:
            scores, ids = index.faiss.search(vector, wanted, params=params)
            best = best_per_chunk(scores[0], ids[0], index.window_rows, visible)
            if len(best) >= k or wanted >= total:
                break
            wanted = min(total, wanted * 2)
        found = [(index.chunks[row].id, score) for row, score in best.items()]
        return sorted(found, key=lambda item: (-item[1], item[0]))[:k]

    def _bm25(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray,
              filters: RetrievalFilters) -> list[tuple[str, float]]:
        tokens = keyword_tokens(query)
        if not tokens:
            return []
        scores = index.bm25.get_scores(tokens, weight_mask=visible.astype(np.float32))
        scores = np.where(visible, scores, 0.0)  # belt and braces: the mask is the contract
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            # Everything scoring at least the k-th best: ties at the cut are then broken by id.
            kth = np.partition(scores[candidates], len(candidates) - k)[len(candidates) - k]
            candidates = candidates[scores[candidates] >= kth]
        found = [(index.chunks[r].id, float(scores[r])) for r in candidates]
        return sorted(found, key=lambda item: (-item[1], item[0]))[:k]

    def _hybrid(self, index: LoadedIndex, request: SearchRequest, visible: np.ndarray,
                debug: dict) -> list[SearchHit]:
        """RRF of semantic, bm25, the definitions past changes with matching messages touched,
        and the code the question names (weighted), unnamed exception types' definitions scaled
        down (listed in the debug record), then each hit lifted by its file's evidence."""
        retrieval = self.settings.retrieval
        query, filters = request.query, request.retrieval_filters
        # RRF scores depend on how deep each source ranks: a fixed depth keeps the first hits the
        # same whether 8 or 100 are asked (the pipeline's retrieve and a plain search agree).
        depth = max(request.top_k, retrieval.fusion_depth)
        # A keyword-ready index has no vectors yet: the other sources rank alone. (Semantic
        # stays first when present: fusion breaks ties by the first source.)
        rankings = ({"semantic": ranks_of([cid for cid, _ in self._semantic(index, query, depth, visible, filters)])}
                    if index.has_vectors() else {})
        rankings["bm25"] = ranks_of([cid for cid, _ in self._bm25(index, query, depth, visible, filters)])
        if retrieval.change_history_weight > 0:
            rankings["history"] = ranks_of(self._history(index, query, depth, visible, debug))
        mentions = self._mentions(index, query, depth, visible) if retrieval.mention_weight > 0 else {}
        weights = {"semantic": retrieval.semantic_weight, "bm25": retrieval.bm25_weight,
                   "history": retrieval.change_history_weight, "mentions": retrieval.mention_weight}
        fused = fuse(rankings, retrieval.rrf_k, weights, {"mentions": mentions})
        symptoms = self._unnamed_symptoms(index, request.query, fused) if retrieval.symptom_weight != 1 else set()
        fused = scaled(fused, lambda cid: retrieval.symptom_weight if cid in symptoms else 1.0)
        fused = with_file_evidence(fused, lambda cid: index.chunks[index.rows[cid][0]].path,
                                   retrieval.file_evidence_weight, retrieval.file_evidence_chunks,
                                   lambda cid: index.chunks[index.rows[cid][0]].node_id)
        hits = [SearchHit(cid, score, rank, sources)
                for rank, (cid, score, sources) in enumerate(fused[:request.top_k], start=1)]
        debug["symptoms_scaled"] = [hit.id for hit in hits if hit.id in symptoms]
        return hits

    def _unnamed_symptoms(self, index: LoadedIndex, query: str, fused: Fused) -> set[str]:
        """The fused ids that define an exception type (or are its methods) the question does
        not name. An error report quotes its exception's message and relatives, so their
        definitions match it by construction -- yet a fix rarely changes them. A type the
        question names is kept: "where is RetrievalError raised" asks about it."""
        with self._loading:
            if index.symptoms is None:
                index.symptoms = symptom_types(index.chunks)
        named = question_words(query)
        return {cid for cid, _, _ in fused if defines_symptom(index.chunks[index.rows[cid][0]], index.symptoms, named)}

    def _history(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray, debug: dict) -> list[str]:
        """The chunk ids of the best k visible definitions that the past changes whose messages
        match the question touched (a split definition by its first part)."""
        with self._loading:
            if index.history is None:
                index.history = HistoryIndex.build(index.stored.change_history() or [])
        if not index.history.changes:
            debug["change_history"] = "none: the index holds no past changes (rebuild it from a git work tree)"
            return []
        debug["change_history"] = f"{len(index.history.changes)} past changes"
        retrieval = self.settings.retrieval
        ranked = index.history.ranking(query, lambda node: bool(_visible_rows(index, visible, node)),
                                       retrieval.change_history_matches, k, retrieval.change_history_half_life)
        return [index.chunks[index.rows[node][0]].id for node, _ in ranked]

    def _mentions(self, index: LoadedIndex, query: str, k: int, visible: np.ndarray) -> dict[str, float]:
        """Strength (0..1) of the best k rows the question names."""
        with self._loading:
            if index.symbols is None:
                index.symbols = SymbolTable.build(index.chunks)
        scores = index.symbols.scores(query, visible)
        top = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return {index.chunks[row].id: strength(score) for row, score in top}

    def _reranked(self, index: LoadedIndex, request: SearchRequest, visible: np.ndarray,
                  debug: dict) -> list[SearchHit]:
        reranker = self._reranker(request.rerank)
        widen = self.settings.retrieval.widen_factor
        candidates = self._semantic(index, request.query, request.top_k * widen, visible,
                                    request.retrieval_filters)
        chunks = [index.chunks[index.rows[cid][0]] for cid, _ in candidates]
        scores = reranker.scores(request.query, chunks, [s for _, s in candidates])
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
        debug["rerank_candidates"] = len(candidates)
        return [SearchHit(candidates[i][0], float(scores[i]), rank, {"semantic": i + 1})
                for rank, i in enumerate(order[:request.top_k], start=1)]

    def _reranker(self, name: str) -> Reranker:
        retrieval = self.settings.retrieval
        if name == "keyword_rerank":
            return KeywordReranker(retrieval.keyword_semantic_weight, retrieval.keyword_keyword_weight)
        return CrossEncoderReranker(retrieval.cross_encoder_model)

    @staticmethod
    def _ranked(found: list[tuple[str, float]], source: str) -> list[SearchHit]:
        return [SearchHit(cid, score, rank, {source: rank}) for rank, (cid, score) in enumerate(found, start=1)]

    # --- indexes --------------------------------------------------------------------------

    def generation(self, repository: str, branch: str, active_index: str | None) -> str | None:
        """The name of the index's live generation (a re-index publishes a new one); None: none yet."""
        current = store.current_generation(store.IndexLocation(self.data_dir, repository, active_index or branch))
        return current.name if current else None

    def _index(self, repository: str, branch: str, active_index: str | None) -> LoadedIndex:
        check_scope(repository, branch)
        name = active_index or branch
        key = (repository, name)
        location = store.IndexLocation(self.data_dir, repository, name)
        with self._loading:
            cached = self._indexes.get(key)
            live = self._live(location)
            # A re-index publishes a new generation and deletes the old one: follow it.
            if cached is None or cached.stored.generation != live:
                self._indexes[key] = self._load(location, live, cached)
            index = self._indexes[key]
        if index.stored.manifest["branch"] != branch:
            raise RetrievalError(f"index {repository}/{name} holds branch "
                                 f"{index.stored.manifest['branch']!r}, not {branch!r}", where="branch")
        return index


    def _live(self, location: store.IndexLocation) -> Path | None:
        """What names the live generation (its folder here)."""
        return store.current_generation(location)

    def _load(self, location: store.IndexLocation, live: Path | None,
              previous: LoadedIndex | None = None) -> LoadedIndex:
        return _load_live(location, previous)


def best_per_chunk(scores: np.ndarray, ids: np.ndarray, window_rows: np.ndarray,
                   visible: np.ndarray) -> dict[int, float]:
    """Chunk row -> its best window score, over FAISS results (ids < 0 are empty slots)."""
    best: dict[int, float] = {}
    for score, window in zip(scores, ids):
        if window < 0:
            continue
        row = int(window_rows[window])
        if visible[row] and float(score) > best.get(row, -np.inf):
            best[row] = float(score)
    return best


def _visible_rows(index: LoadedIndex, visible: np.ndarray, cid: str) -> list[int]:
    """The rows of a chunk id (or of every part of a split node), if all are visible; else []."""
    rows = index.rows.get(cid, [])
    return rows if rows and all(visible[r] for r in rows) else []


def _node_visible(data: dict, filters: RetrievalFilters) -> bool:
    acl = data.get("acl") or {}
    return filters.allows(acl.get("acl_tags", ()), acl.get("classification_labels", ()), data.get("path", ""),
                          data.get("kind", ""), data.get("language", ""))


def _code_neighbours(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The nodes linked to `node` that are not EXTERNAL themselves."""
    ends = [*graph.predecessors(node), *graph.successors(node)]
    return [n for n in dict.fromkeys(ends) if graph.nodes[n].get("kind") != "EXTERNAL"]


def _load_live(location: store.IndexLocation, previous: LoadedIndex | None) -> LoadedIndex:
    """`_load`, again when a newer generation went live while it read (a semantic fill publishes
    every few seconds and removes older generations)."""
    with gc_paused():  # chunks, BM25 and tables are many small objects, none of them garbage
        return _load_retried(location, previous)


def _load_retried(location: store.IndexLocation, previous: LoadedIndex | None) -> LoadedIndex:
    for _ in range(LOAD_ATTEMPTS - 1):
        seen = store.current_generation(location)
        try:
            return _load(location, previous)
        except IndexLoadError:
            if store.current_generation(location) == seen:
                raise  # broken, not replaced
    return _load(location, previous)


def _load(location: store.IndexLocation, previous: LoadedIndex | None = None) -> LoadedIndex:
    """The live generation. When only its vectors are new (a semantic fill published a batch),
    the previous load's chunks, BM25, graph and tables are kept and only FAISS is read."""
    import faiss

    # One query at a time: OpenMP threads only add hand-off cost (16 ms -> 6.5 ms at 100k rows).
    faiss.omp_set_num_threads(1)
    stored = store.load_index(location, optional=(store.BM25_DIR + "/", store.CHANGE_HISTORY))
    keyword = stored.manifest.get("keyword_generation")
    if previous is not None and keyword and previous.stored.manifest.get("keyword_generation") == keyword:
        vectors, window_rows = read_faiss(stored.faiss_path)
        return replace(previous, stored=stored, faiss=vectors, window_rows=window_rows)
    chunks = stored.chunks()
    bm25 = read_bm25(stored.bm25_dir) if stored.bm25_dir.is_dir() else None
    vectors, window_rows = read_faiss(stored.faiss_path)
    return LoadedIndex(stored, chunks, chunk_rows(chunks), vectors, window_rows, bm25, Visibility(chunks))


def chunk_rows(chunks: list[Chunk]) -> dict[str, list[int]]:
    """Chunk id, and node id of a split chunk, -> its rows in order."""
    rows: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        rows[chunk.id] = [row]
        if chunk.node_id != chunk.id:
            rows.setdefault(chunk.node_id, []).append(row)
    return rows
