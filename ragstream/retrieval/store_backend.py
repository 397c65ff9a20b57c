"""The retrieval contract (`types.RetrievalBackend`) served over one index store: searches by the
retriever (`retriever.py`), texts, chunks, locations and the graph read from the store's loaded
generation through the caller's `retrieval_filters` (a fetch returns only the rows the store lets
through; the graph is a view holding only the nodes the filters let through).
"""
from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from ragstream.config import Settings
from ragstream.index.embeddings import Embedder
from ragstream.index.headers import for_caller
from ragstream.index.model import Chunk
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.index_store import IndexStore, LoadedIndex
from ragstream.retrieval.retriever import Retriever
from ragstream.retrieval.types import SearchRequest, SearchResponse


class StoreBackend:
    """A retriever and chunk and graph access, composed over one store."""

    def __init__(self, store: IndexStore[Any]):
        self.store = store
        self.retriever = Retriever(store, store.settings.retrieval)

    @property
    def settings(self) -> Settings:
        return self.store.settings

    @property
    def embedder(self) -> Embedder:
        return self.store.embedder

    def search(self, request: SearchRequest) -> SearchResponse:
        return self.retriever.search(request)

    def generation(self, repository: str, branch: str, active_index: str | None) -> str | None:
        """The name of the index's live generation (a re-index publishes a new one); None: none yet."""
        return self.store.generation(repository, branch, active_index)

    def fetch_texts(self, ids: list[str], repository: str, branch: str,
                    retrieval_filters: RetrievalFilters | dict | None,
                    active_index: str | None = None) -> dict[str, str]:
        """Texts of the ids that exist and are visible in scope; the others are left out. A node
        whose chunk was split gets its parts joined in order."""
        index, _, visible = self._fetched(ids, repository, branch, retrieval_filters, active_index)
        return {cid: "\n".join(index.chunks[r].text for r in rows)
                for cid in ids if (rows := index.visible_rows(visible, cid))}

    def fetch_chunks(self, ids: list[str], repository: str, branch: str,
                     retrieval_filters: RetrievalFilters | dict | None,
                     active_index: str | None = None) -> list[Chunk]:
        """The chunks of the visible ids, unique by id, in the order asked; a split node comes
        back whole (its parts joined, spanning from the first part's start to the last's end).
        Each header is rendered for the caller: it names only the neighbours its filters allow."""
        index, filters, visible = self._fetched(ids, repository, branch, retrieval_filters, active_index)
        chunks = [whole_chunk(index, cid, rows) for cid in dict.fromkeys(ids)
                  if (rows := index.visible_rows(visible, cid))]
        if not chunks:
            return chunks
        graph = self.graph(repository, branch, filters, active_index)
        return [for_caller(chunk, graph, self.settings.chunks.header_max_names) for chunk in chunks]

    def locations(self, ids: list[str], repository: str, branch: str,
                  retrieval_filters: RetrievalFilters | dict | None,
                  active_index: str | None = None) -> dict[str, str]:
        """`path:start-end` of the ids visible in scope (for tables; no text)."""
        index, _, visible = self._fetched(ids, repository, branch, retrieval_filters, active_index)
        spans = {}
        for cid in ids:
            if rows := index.visible_rows(visible, cid):
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
        filters = RetrievalFilters.parse(retrieval_filters)
        index.visibility.filter_warnings(filters)  # a look-alike exclude is refused here too
        return filtered_graph(self.store.graph(index), filters)

    def _index(self, repository: str, branch: str, active_index: str | None) -> LoadedIndex:
        return self.store.index(repository, branch, active_index)

    def _fetched(self, ids: list[str], repository: str, branch: str,
                 retrieval_filters: RetrievalFilters | dict | None,
                 active_index: str | None) -> tuple[LoadedIndex, RetrievalFilters, np.ndarray]:
        """The loaded index, the filters, and the rows a fetch of `ids` may return (the store decides)."""
        index = self._index(repository, branch, active_index)
        filters = RetrievalFilters.parse(retrieval_filters)
        return index, filters, self.store.fetch_mask(index, ids, filters)


def whole_chunk(index: LoadedIndex, cid: str, rows: list[int]) -> Chunk:
    """The chunk of `cid`; a split node's parts joined into one, from the first part's start to
    the last part's end."""
    parts = [index.chunks[r] for r in rows]
    first = parts[0]
    if len(parts) == 1 and first.id == cid:
        return first
    meta = {k: v for k, v in first.metadata.items() if k not in ("parent_chunk", "part", "parts")}
    return Chunk(cid, first.path, first.start_line, parts[-1].end_line, first.kind, first.symbol,
                 "\n".join(p.text for p in parts), meta)


def filtered_graph(full: nx.MultiDiGraph, filters: RetrievalFilters) -> nx.MultiDiGraph:
    """The view of `full` holding the nodes the filters let through (see `StoreBackend.graph`)."""
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


def _node_visible(data: dict, filters: RetrievalFilters) -> bool:
    acl = data.get("acl") or {}
    return filters.allows(acl.get("acl_tags", ()), acl.get("classification_labels", ()), data.get("path", ""),
                          data.get("kind", ""), data.get("language", ""))


def _code_neighbours(graph: nx.MultiDiGraph, node: str) -> list[str]:
    """The nodes linked to `node` that are not EXTERNAL themselves."""
    ends = [*graph.predecessors(node), *graph.successors(node)]
    return [n for n in dict.fromkeys(ends) if graph.nodes[n].get("kind") != "EXTERNAL"]
