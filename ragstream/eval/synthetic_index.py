"""A synthetic index written straight to the store: random vectors, chosen metadata, no model.

For retrieval tests and benchmarks that need 100k chunks or hypothesis-generated ones; indexes
of real code come from `build_index` instead.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import numpy as np

from ragstream.index import store
from ragstream.index.chunks import keyword_text
from ragstream.index.compact_forms import write_compact_forms
from ragstream.index.embeddings import DIMENSION
from ragstream.index.search_artifacts import write_bm25, write_faiss
from ragstream.index.model import Chunk


@dataclass(frozen=True)
class Row:
    id: str
    text: str
    path: str = "src/a.py"
    kind: str = "FUNCTION"
    language: str = "python"
    acl_tags: tuple[str, ...] = ("public",)
    labels: tuple[str, ...] = ("internal",)


def write_synthetic_index(data_dir: Path, rows: list[Row], seed: int = 0, repository: str = "synth",
                          branch: str = "main", vectors: np.ndarray | None = None,
                          edges: Sequence[tuple[str, str, str]] = ()) -> store.IndexLocation:
    """An index of `rows` (one chunk and one graph node each) and `edges` (source, target, type)."""
    location = store.IndexLocation(data_dir, repository, branch)
    chunks = [Chunk(r.id, r.path, 1, 2, r.kind, r.id, r.text,
                    {"language": r.language, "acl_tags": list(r.acl_tags),
                     "classification_labels": list(r.labels), "header": f"file: {r.path}"})
              for r in rows]
    if vectors is None:
        vectors = np.random.default_rng(seed).normal(size=(len(rows), DIMENSION)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with store.build_lock(location):
        generation = store.new_generation(location)
        store.write_jsonl(generation / store.CHUNKS, chunks)
        write_faiss(generation / store.FAISS, vectors, np.arange(len(chunks)))  # one window a chunk
        write_bm25(generation / store.BM25_DIR, [keyword_text(c) for c in chunks])
        graph = _graph(rows, edges)
        store.write_graph(generation / store.GRAPH, graph)
        write_compact_forms(generation, graph, chunks)
        store.write_json(generation / store.MANIFEST, {
            "format_version": store.FORMAT_VERSION, "repository": repository, "branch": branch,
            "active_index": branch, "source_root": "", "files": {}, "counts": {"chunks": len(chunks)},
            "artifacts": store.artifact_sizes(generation)})
        store.publish(location, generation)
    return location


def _graph(rows: list[Row], edges) -> nx.MultiDiGraph:
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    for r in rows:
        graph.add_node(r.id, id=r.id, kind=r.kind, language=r.language, name=r.id, path=r.path,
                       start_line=1, end_line=2, acl={"acl_tags": list(r.acl_tags),
                                                      "classification_labels": list(r.labels), "owner_group": ""})
    for source, target, edge_type in edges:
        graph.add_edge(source, target, key=edge_type, type=edge_type)
    return graph
