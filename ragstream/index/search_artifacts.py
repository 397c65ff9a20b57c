"""The FAISS and BM25 files of an index: written here at build time, read by the retrieval backend.

FAISS: an exact inner-product index over L2-normalised vectors (cosine), one vector per semantic
window (`index/embedding_windows.py`), with the chunk row of each vector beside it (`faiss.index.rows.npy`),
so a search can be restricted with an id selector over the windows of visible chunks. BM25:
bm25s over code-aware keyword tokens of each chunk's `keyword_text`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ragstream.keyword_tokens import keyword_tokens


def write_faiss(path: Path, vectors: np.ndarray, chunk_rows: np.ndarray) -> None:
    """The vectors, and beside them (`<path>.rows.npy`) the chunk row each belongs to."""
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, str(path))
    np.save(rows_path(path), np.asarray(chunk_rows, dtype=np.int32), allow_pickle=False)


def read_faiss(path: Path) -> tuple[object, np.ndarray]:
    """(FAISS index, chunk row of each of its vectors)."""
    import faiss

    return faiss.read_index(str(path)), np.load(rows_path(path), allow_pickle=False)


def rows_path(faiss_path: Path) -> Path:
    return faiss_path.with_name(faiss_path.name + ".rows.npy")


def write_bm25(directory: Path, texts: list[str]) -> None:
    import bm25s

    retriever = bm25s.BM25()
    # bm25s cannot index an empty document; one placeholder token keeps row i = chunk i.
    documents = [keyword_tokens(t) or ["\x00empty"] for t in texts]
    # Our own vocabulary, sorted: bm25s numbers tokens in the order of a set of strings, which
    # differs per process, so the same chunks would give different files.
    vocab = {token: i for i, token in enumerate(sorted({token for document in documents for token in document}))}
    retriever.index(([[vocab[token] for token in document] for document in documents], vocab), show_progress=False)
    retriever.save(str(directory))


def read_bm25(directory: Path):
    import bm25s

    return bm25s.BM25.load(str(directory))
