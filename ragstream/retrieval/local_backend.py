"""The local index store: every index under the data folder, searched with FAISS (semantic) and
bm25s (keyword); and `LocalBackend`, the retrieval contract over it (`store_backend.py`).

Security filters become a row mask before anything is scored: FAISS searches with an id
selector over the windows of visible chunks (a chunk scores by its best window) and BM25
scores with the mask as weights, so a filtered search still returns top_k visible hits when
they exist, and nothing invisible is ever ranked or returned.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from ragstream.config import Settings
from ragstream.errors import IndexLoadError
from ragstream.gc_pause import gc_paused
from ragstream.index import store
from ragstream.index.chunk_table import read_chunk_table
from ragstream.index.compact_graph import FOLDER as COMPACT_GRAPH, read_compact_graph
from ragstream.index.embeddings import Embedder
from ragstream.index.mention_table import FOLDER as MENTIONS, MentionTable
from ragstream.index.search_artifacts import read_bm25, read_faiss
from ragstream.keyword_tokens import keyword_tokens
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.index_store import Generations, LoadedIndex, best_first, chunk_rows
from ragstream.retrieval.store_backend import StoreBackend
from ragstream.retrieval.visibility import Visibility


@dataclass
class LocalIndex(LoadedIndex):
    """A generation read from the data folder, with its FAISS and BM25 indexes."""

    faiss: Any = None  # one vector per semantic window
    window_rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))  # chunk row per vector
    bm25: Any = None  # None when the BM25 files are missing

    def read_graph(self) -> nx.MultiDiGraph:
        """The compact graph the build wrote (`index/compact_graph.py`), read lazily; an index
        built before it: graph.json, read whole."""
        graph = read_compact_graph(self.stored.generation / COMPACT_GRAPH)
        return graph if graph is not None else self.stored.graph()

    def stored_mentions(self) -> MentionTable | None:
        return MentionTable.read(self.stored.generation / MENTIONS)


LOAD_ATTEMPTS = 3


class LocalStore:
    """Every index under the data folder, each loaded once on first use."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.data_dir = Path(settings.index.data_dir).expanduser().resolve()
        self.embedder = embedder or Embedder(settings.embedding.dtype, settings.embedding.batch_size,
                                             settings.embedding.onnx_below)
        self.generations: Generations[LocalIndex] = Generations(self.data_dir, store.current_generation,
                                       lambda location, live, previous: _load_live(location, previous))

    def generation(self, repository: str, branch: str, active_index: str | None) -> str | None:
        """The name of the index's live generation (a re-index publishes a new one); None: none yet."""
        current = store.current_generation(store.IndexLocation(self.data_dir, repository, active_index or branch))
        return current.name if current else None

    def index(self, repository: str, branch: str, active_index: str | None) -> LocalIndex:
        return self.generations.index(repository, branch, active_index)

    def graph(self, index: LocalIndex) -> nx.MultiDiGraph:
        return self.generations.graph(index)

    def keyword_missing(self, index: LocalIndex) -> str | None:
        return None if index.bm25 is not None else str(index.stored.bm25_dir)

    def fetch_mask(self, index: LocalIndex, ids: list[str], filters: RetrievalFilters) -> np.ndarray:
        return index.visibility.mask(filters)

    def semantic(self, index: LocalIndex, query: str, k: int, filters: RetrievalFilters) -> list[tuple[str, float]]:
        """The best k visible chunks, each scored by its best window (MaxP)."""
        import faiss

        visible = index.visibility.mask(filters)
        k = min(k, int(visible.sum()))
        if k == 0 or index.faiss.ntotal == 0:  # nothing visible, or no vector embedded yet
            return []
        vector = self.embedder.encode([query])
        # One query at a time: OpenMP threads only add hand-off cost (16 ms -> 6.5 ms at 100k rows).
        # The setting is the calling thread's, so it is made here, on the thread that searches
        # (a server's worker threads, not only the one that loaded the index).
        faiss.omp_set_num_threads(1)
        windows_visible = visible[index.window_rows]
        params = None
        if not windows_visible.all():
            bitmap = np.packbits(windows_visible, bitorder="little")
            params = faiss.SearchParameters()
            params.sel = faiss.IDSelectorBitmap(len(windows_visible), faiss.swig_ptr(bitmap))
        total = int(windows_visible.sum())
        if total == 0:  # a fill under way has embedded none of the visible chunks yet (FAISS asserts k > 0)
            return []
        wanted = min(total, k * 2)  # most chunks have one window: a little headroom is usually enough
        while True:
            scores, ids = index.faiss.search(vector, wanted, params=params)
            best = best_per_chunk(scores[0], ids[0], index.window_rows, visible)
            if len(best) >= k or wanted >= total:
                break
            wanted = min(total, wanted * 2)
        return best_first([(index.ids[row], score) for row, score in best.items()], k)

    def keyword(self, index: LocalIndex, query: str, k: int, filters: RetrievalFilters) -> list[tuple[str, float]]:
        tokens = keyword_tokens(query)
        if not tokens:
            return []
        visible = index.visibility.mask(filters)
        scores = index.bm25.get_scores(tokens, weight_mask=visible.astype(np.float32))
        scores = np.where(visible, scores, 0.0)  # belt and braces: the mask is the contract
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            # Everything scoring at least the k-th best: ties at the cut are then broken by id.
            kth = np.partition(scores[candidates], len(candidates) - k)[len(candidates) - k]
            candidates = candidates[scores[candidates] >= kth]
        return best_first([(index.ids[r], float(scores[r])) for r in candidates], k)


class LocalBackend(StoreBackend):
    """The retrieval contract over every index under the data folder."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        local = LocalStore(settings, embedder)
        super().__init__(local)
        self.data_dir = local.data_dir


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


def _load_live(location: store.IndexLocation, previous: LocalIndex | None) -> LocalIndex:
    """`_load`, again when a newer generation went live while it read (a semantic fill publishes
    every few seconds and removes older generations)."""
    with gc_paused():  # chunks, BM25 and tables are many small objects, none of them garbage
        return _load_retried(location, previous)


def _load_retried(location: store.IndexLocation, previous: LocalIndex | None) -> LocalIndex:
    for _ in range(LOAD_ATTEMPTS - 1):
        seen = store.current_generation(location)
        try:
            return _load(location, previous)
        except IndexLoadError:
            if store.current_generation(location) == seen:
                raise  # broken, not replaced
    return _load(location, previous)


def _load(location: store.IndexLocation, previous: LocalIndex | None = None) -> LocalIndex:
    """The live generation. When only its vectors are new (a semantic fill published a batch),
    the previous load's chunks, BM25, graph and tables are kept and only FAISS is read."""
    stored = store.load_index(location, optional=(store.BM25_DIR + "/", store.CHANGE_HISTORY))
    keyword = stored.manifest.get("keyword_generation")
    if previous is not None and keyword and previous.stored.manifest.get("keyword_generation") == keyword:
        vectors, window_rows = read_faiss(stored.faiss_path)
        return replace(previous, stored=stored, faiss=vectors, window_rows=window_rows)
    table = read_chunk_table(stored.generation)  # None: an index built before chunk tables
    chunks = stored.chunks() if table is None else table
    bm25 = read_bm25(stored.bm25_dir) if stored.bm25_dir.is_dir() else None
    vectors, window_rows = read_faiss(stored.faiss_path)
    return LocalIndex(stored, chunks, chunk_rows(chunks), Visibility(chunks), faiss=vectors,
                      window_rows=window_rows, bm25=bm25)
