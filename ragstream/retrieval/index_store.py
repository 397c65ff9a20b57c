"""What a store of indexes answers, whatever holds the index (local files, Milvus): the interface
the retriever (`retriever.py`) and chunk and graph access (`store_backend.py`) are written against.

A store loads the live generation of an index once (`index`) and follows a new one; it ranks
the chunks of that generation by vector (`semantic`) and by keyword (`keyword`), and says which
rows a fetch may return (`fetch_mask`). Every one of these applies the caller's
`retrieval_filters` itself, before anything is ranked or cut to k: nothing a filter hides is
ever ranked or returned. The chunk table, the graph, the symbol table and the past changes of a
generation are held in memory the same way by every store (`LoadedIndex`, `Generations`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import networkx as nx
import numpy as np

from ragstream.config import Settings
from ragstream.errors import RetrievalError
from ragstream.gc_pause import gc_paused
from ragstream.index import store
from ragstream.index.embeddings import Embedder
from ragstream.index.fill import semantic_over, stage_of
from ragstream.index.graph_mark import graph_note
from ragstream.index.chunk_table import chunk_ids, chunk_nodes, row_node, row_path
from ragstream.index.mention_table import MentionTable
from ragstream.index.model import Chunk
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.history_search import HistoryIndex
from ragstream.retrieval.mentions import SymbolTable
from ragstream.retrieval.types import check_scope
from ragstream.retrieval.visibility import Visibility


@dataclass
class LoadedIndex:
    """One generation of an index in memory: what every store holds of it. A store adds its
    own search structures (`local_backend.LocalIndex`, `milvus_backend.PublishedLoaded`)."""

    stored: Any  # store.StoredIndex, or milvus_store.PublishedIndex: manifest, location, graph(), change_history()
    chunks: Sequence[Chunk]  # a list, or a chunk table that parses a row when it is read
    rows: dict[str, list[int]]  # chunk id, or node id of a split chunk -> its rows (in order)
    visibility: Visibility
    graph: nx.MultiDiGraph | None = None  # loaded on first use
    symbols: SymbolTable | None = None  # built on first hybrid search
    symptoms: frozenset[str] | None = None  # the exception types, found on first hybrid search
    history: HistoryIndex | None = None  # the past changes, searchable; built on first hybrid search

    @cached_property
    def ids(self) -> list[str]:
        """Every row's chunk id (a chunk table's, without parsing any chunk)."""
        return chunk_ids(self.chunks)

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
        return (f"{semantic_over(vectors)} ({vectors['heads']:,} of {vectors['chunks']:,} chunks): "
                "the semantic fill is not complete")

    def graph_note(self, filtered: bool) -> str | None:
        """What a reader of this generation's graph is told while it is the interim one (`graph_mark`)."""
        return graph_note(self.stored.manifest, filtered)

    def visible_rows(self, visible: np.ndarray, cid: str) -> list[int]:
        """The rows of a chunk id (or of every part of a split node), if all are visible; else []."""
        rows = self.rows.get(cid, [])
        return rows if rows and all(visible[r] for r in rows) else []

    def first_chunk(self, cid: str) -> Chunk:
        """The chunk of an id (of a split node: its first part)."""
        return self.chunks[self.rows[cid][0]]

    def path_of(self, cid: str) -> str:
        """The file of an id's chunk (of a split node: its first part's)."""
        return row_path(self.chunks, self.rows[cid][0])

    def node_of(self, cid: str) -> str:
        """The graph node of an id's chunk (of a split node: its first part's)."""
        return row_node(self.chunks, self.rows[cid][0])

    def read_graph(self) -> nx.MultiDiGraph:
        """The generation's graph as its store reads it (`Generations.graph` keeps it)."""
        return self.stored.graph()

    def stored_mentions(self) -> MentionTable | None:
        """The symbol table the build wrote for the mentions search; None: it is made from the chunks."""
        return None


Index = TypeVar("Index", bound=LoadedIndex)  # what a store loads of a generation


class IndexStore(Protocol[Index]):
    """Where indexes live and how their chunks are ranked. Every method that ranks or fetches
    applies `filters` in the store, before ranking and before the cut to k."""

    settings: Settings
    embedder: Embedder

    def generation(self, repository: str, branch: str, active_index: str | None) -> str | None:
        """The name of the index's live generation; None when there is none yet."""

    def index(self, repository: str, branch: str, active_index: str | None) -> Index:
        """The live generation of the index, loaded once and followed when a new one goes live;
        an error when it holds another branch."""

    def keyword_missing(self, index: Index) -> str | None:
        """Where the generation's keyword index should be, when it has none; None when it has one."""

    def semantic(self, index: Index, query: str, k: int, filters: RetrievalFilters) -> list[tuple[str, float]]:
        """The best k chunks the filters let through by vector similarity to the query, each
        scored by its best window, best first (ties by id)."""

    def keyword(self, index: Index, query: str, k: int, filters: RetrievalFilters) -> list[tuple[str, float]]:
        """The best k chunks the filters let through by BM25 over the query's keyword tokens,
        best first (ties by id, also at the cut)."""

    def fetch_mask(self, index: Index, ids: list[str], filters: RetrievalFilters) -> np.ndarray:
        """The rows a fetch of `ids` under the filters may return."""

    def graph(self, index: Index) -> nx.MultiDiGraph:
        """The generation's whole dependency graph, frozen (the caller filters its view)."""


class Generations(Generic[Index]):
    """The loaded generations of a store's indexes, one per (repository, index), each loaded by
    whichever thread asks first, once, and replaced when another generation goes live. `live`
    names a location's live generation; `load(location, live, previous)` reads it."""

    def __init__(self, data_dir: Path, live: Callable[[store.IndexLocation], Any],
                 load: Callable[[store.IndexLocation, Any, Index | None], Index]):
        self.data_dir = data_dir
        self._live, self._load = live, load
        self.loaded: dict[tuple[str, str], Index] = {}
        # The workbench serves every browser session from one backend, on several threads:
        # an index and its graph are loaded by whichever comes first, once.
        self.lock = threading.Lock()

    def index(self, repository: str, branch: str, active_index: str | None) -> Index:
        check_scope(repository, branch)
        name = active_index or branch
        key = (repository, name)
        location = store.IndexLocation(self.data_dir, repository, name)
        with self.lock:
            cached = self.loaded.get(key)
            live = self._live(location)
            # A re-index publishes a new generation and deletes the old one: follow it.
            if cached is None or cached.stored.generation != live:
                self.loaded[key] = self._load(location, live, cached)
            index = self.loaded[key]
        if index.stored.manifest["branch"] != branch:
            raise RetrievalError(f"index {repository}/{name} holds branch "
                                 f"{index.stored.manifest['branch']!r}, not {branch!r}", where="branch")
        return index

    def graph(self, index: Index) -> nx.MultiDiGraph:
        """The generation's graph, read on first use and frozen: shared, nobody may change it."""
        with self.lock:
            if index.graph is None:
                with gc_paused():
                    index.graph = nx.freeze(index.read_graph())
        return index.graph


def chunk_rows(chunks: Sequence[Chunk]) -> dict[str, list[int]]:
    """Chunk id, and node id of a split chunk, -> its rows in order."""
    ids, nodes = chunk_ids(chunks), chunk_nodes(chunks)
    if ids == nodes:  # no chunk is split: one row per id
        return {cid: [row] for row, cid in enumerate(ids)}
    rows: dict[str, list[int]] = {}
    for row, (cid, node) in enumerate(zip(ids, nodes)):
        rows[cid] = [row]
        if node != cid:
            rows.setdefault(node, []).append(row)
    return rows


def best_first(found: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
    """Best score first, ties by id (the order every store ranks in), cut to k."""
    return sorted(found, key=lambda item: (-item[1], item[0]))[:k]
