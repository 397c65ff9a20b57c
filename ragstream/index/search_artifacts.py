"""The FAISS and BM25 files of an index: written here at build time, read by the retrieval backend.

FAISS: an exact inner-product index over L2-normalised vectors (cosine), row i = chunk i, so
a search can be restricted with an id selector. BM25: bm25s over code-aware keyword tokens of
each chunk's `keyword_text`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ragstream.index.keywords import keyword_tokens


def write_faiss(path: Path, vectors: np.ndarray) -> None:
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, str(path))


def read_faiss(path: Path):
    import faiss

    return faiss.read_index(str(path))


def write_bm25(directory: Path, texts: list[str]) -> None:
    import bm25s

    retriever = bm25s.BM25()
    # bm25s cannot index an empty document; one placeholder token keeps row i = chunk i.
    retriever.index([keyword_tokens(t) or ["\x00empty"] for t in texts], show_progress=False)
    retriever.save(str(directory))


def read_bm25(directory: Path):
    import bm25s

    return bm25s.BM25.load(str(directory))
