"""The Milvus index store: every index published to the Milvus at `milvus.uri`; and
`MilvusBackend`, the same retrieval contract as the local one over it (`store_backend.py`).

Dense (one row per window, grouped by chunk: a chunk scores by its best window, as locally),
BM25 (the engine's BM25 over ragstream's own keyword tokens) and every fetch run in the engine
with the caller's `retrieval_filters` as the request's filter expression, so nothing outside
them is ranked or returned. Hybrid search fuses the two engine rankings with ragstream's RRF
and its other sources (code the question names, past changes, file evidence, exception types),
as over the local store (`retriever.py`): those read the chunk metadata, graph and change
history each worker loads once per generation from the server. (The engine's own RRF fuses by
primary key -- a window -- so a chunk whose best window is not its keyword row would be counted
twice.)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np

from ragstream.config import Settings
from ragstream.index import store
from ragstream.index.embeddings import Embedder
from ragstream.keyword_tokens import keyword_tokens
from ragstream.retrieval import milvus_store
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.index_store import Generations, LoadedIndex, best_first, chunk_rows
from ragstream.retrieval.milvus_filters import NOTHING, to_expression
from ragstream.retrieval.store_backend import StoreBackend
from ragstream.retrieval.visibility import Visibility

MAX_LIMIT = 16_384  # the most hits one Milvus search returns


@dataclass
class PublishedLoaded(LoadedIndex):
    """A published generation: its collection, and every path it holds (path globs are
    evaluated over them)."""

    collection: str = ""
    paths: tuple[str, ...] = ()


class MilvusStore:
    """Every index published to the Milvus at `milvus.uri`, each generation read once."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, client=None):
        self.settings = settings
        self.embedder = embedder or Embedder(settings.embedding.dtype, settings.embedding.batch_size,
                                             settings.embedding.onnx_below)
        self.client = client or milvus_store.connect(settings.milvus.uri)
        self.generations: Generations[PublishedLoaded] = Generations(Path(settings.index.data_dir).expanduser().resolve(), self._live, self._load)

    def generation(self, repository: str, branch: str, active_index: str | None) -> str | None:
        """The live collection of the index; None when it was never published."""
        alias = milvus_store.alias_name(repository, active_index or branch)
        if alias not in self.client.list_aliases().get("aliases", []):
            return None
        return self.client.describe_alias(alias)["collection_name"]

    def index(self, repository: str, branch: str, active_index: str | None) -> PublishedLoaded:
        return self.generations.index(repository, branch, active_index)

    def graph(self, index: PublishedLoaded) -> nx.MultiDiGraph:
        return self.generations.graph(index)

    def keyword_missing(self, index: PublishedLoaded) -> str | None:
        return None  # every published generation has its BM25 collection

    # --- where the engine replaces the local files ------------------------------------------

    def semantic(self, index: PublishedLoaded, query: str, k: int,
                 filters: RetrievalFilters) -> list[tuple[str, float]]:
        expression = to_expression(filters, index.paths)
        k = min(k, int(index.visibility.mask(filters).sum()), MAX_LIMIT)
        if k == 0 or expression == NOTHING:
            return []
        vector = self.embedder.encode([query])[0].tolist()
        found = self.client.search(index.collection, [vector], anns_field="vector", limit=k, filter=expression,
                                   group_by_field="chunk_id", output_fields=["chunk_id"],
                                   search_params={"metric_type": "IP"})[0]
        return best_first([(hit["entity"]["chunk_id"], float(hit["distance"])) for hit in found], k)

    def keyword(self, index: PublishedLoaded, query: str, k: int,
                filters: RetrievalFilters) -> list[tuple[str, float]]:
        expression = to_expression(filters, index.paths)
        tokens = keyword_tokens(query)
        if not tokens or expression == NOTHING:
            return []
        # Headroom past k: the local store breaks ties at the cut by id, so must this.
        found = self.client.search(milvus_store.bm25_name(index.collection), [" ".join(tokens)], anns_field="sparse",
                                   limit=min(2 * k + 16, MAX_LIMIT), filter=expression,
                                   output_fields=["chunk_id"], search_params={"metric_type": "BM25"})[0]
        # Milvus Lite reports BM25 scores negated (a smaller distance is better), a server as they are;
        # both carry Lucene's (k1 + 1) factor, which bm25s leaves out: without it the scores are the local ones.
        scale = milvus_store.BM25_K1 + 1
        scored = [(hit["entity"]["chunk_id"], abs(float(hit["distance"])) / scale) for hit in found]
        return best_first([(cid, score) for cid, score in scored if score > 0], k)

    def fetch_mask(self, index: PublishedLoaded, ids: list[str], filters: RetrievalFilters) -> np.ndarray:
        """The rows of `ids` that the engine returns under the filters (nothing else is fetched)."""
        mask = np.zeros(len(index.chunks), dtype=bool)
        expression = to_expression(filters, index.paths)
        rows = sorted({r for cid in ids for r in index.rows.get(cid, ())})
        if rows and expression != NOTHING:
            where = " and ".join(f"({c})" for c in (f"row in {rows}", "first == true", expression) if c)
            for found in self.client.query(index.collection, filter=where, output_fields=["row"]):
                mask[found["row"]] = True
        return mask

    # --- generations ------------------------------------------------------------------------

    def _live(self, location: store.IndexLocation) -> str:
        return milvus_store.live_collection(self.client, location.repository, location.active_index)

    def _load(self, location: store.IndexLocation, live: str,
              previous: PublishedLoaded | None = None) -> PublishedLoaded:
        """The published generation `live`, read whole (a new generation is a new collection)."""
        published = milvus_store.read_published(self.client, location, live)
        chunks, _ = milvus_store.read_chunks(self.client, live)
        return PublishedLoaded(published, chunks, chunk_rows(chunks), Visibility(chunks), collection=live,
                               paths=tuple(sorted({c.path for c in chunks})))


class MilvusBackend(StoreBackend):
    """The retrieval contract over every index published to the Milvus at `milvus.uri`."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, client=None):
        milvus = MilvusStore(settings, embedder, client)
        super().__init__(milvus)
        self.client = milvus.client
