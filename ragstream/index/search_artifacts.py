"""The FAISS and BM25 files of an index: written here at build time, read by the retrieval backend.

FAISS: an exact inner-product index over L2-normalised vectors (cosine), one vector per semantic
window (`index/embedding_windows.py`), with the chunk row of each vector beside it (`faiss.index.rows.npy`),
so a search can be restricted with an id selector over the windows of visible chunks. BM25:
bm25s's files over code-aware keyword tokens of each chunk's `keyword_text`, scored by
`keyword_scores`.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import orjson

from ragstream import keyword_tokens as tokeniser
from ragstream.index import store
from ragstream.index.blob_cache import BlobCache
from ragstream.index.keyword_scores import Terms, TokenNumbers, save_matrix, score_matrix
from ragstream.keyword_tokens import keyword_tokens

# The tokeniser's own code: tokens kept by another version of it are not reused.
_TOKENISER = hashlib.sha256(Path(tokeniser.__file__).read_bytes()).hexdigest()[:16]


def write_faiss(path: Path, vectors: np.ndarray, chunk_rows: np.ndarray) -> None:
    """The vectors, and beside them (`<path>.rows.npy`) the chunk row each belongs to."""
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, str(path))
    np.save(rows_path(path), np.asarray(chunk_rows, dtype=np.int32), allow_pickle=False)
    for written in (path, rows_path(path)):  # neither library fsyncs
        store.sync_later(written)


def read_faiss(path: Path) -> tuple[object, np.ndarray]:
    """(FAISS index, chunk row of each of its vectors)."""
    import faiss

    return faiss.read_index(str(path)), np.load(rows_path(path), allow_pickle=False)


def rows_path(faiss_path: Path) -> Path:
    return faiss_path.with_name(faiss_path.name + ".rows.npy")


def write_bm25(directory: Path, texts: list[str], cache: BlobCache | None = None, prefix: str = "",
               kept: dict[str, Terms] | None = None, numbers: TokenNumbers | None = None) -> None:
    """BM25 over the texts' keyword tokens (`keyword_scores`); with a `cache` (under keys starting
    with `prefix`), the tokens of a text tokenised before are read back rather than made again.
    `kept` (text key -> its terms, what a process that re-indexes keeps between builds) answers
    first, and is left holding these texts' terms only; `numbers`, kept beside it, holds their
    tokens' numbers (`TokenNumbers`)."""
    keys = [keyword_key(prefix, text) for text in texts]
    known = kept if kept is not None else {}
    missing = sorted({key: i for i, key in enumerate(keys) if key not in known}.values())
    found = dict(zip((keys[i] for i in missing),
                     map(Terms.of, keyword_documents([texts[i] for i in missing], cache, prefix))))
    documents = [known[key] if key in known else found[key] for key in keys]
    save_matrix(directory, score_matrix(documents, numbers))
    for path in sorted(directory.iterdir()):  # written by bm25s, which does not fsync
        store.sync_later(path)
    if kept is not None:
        kept.clear()
        kept.update(zip(keys, documents))


def keyword_key(prefix: str, text: str) -> str:
    """Where a text's keyword tokens are kept: its hash, under the tokeniser's version."""
    return f"{prefix}keywords:{_TOKENISER}:{hashlib.sha256(text.encode()).hexdigest()}"


def keyword_documents(texts: list[str], cache: BlobCache | None, prefix: str) -> list[list[str]]:
    """Each text's keyword tokens; from `cache` where a build tokenised the same text with the
    same tokeniser before (most chunks, after an edit), the new ones tokenised and kept."""
    if cache is None:
        return [keyword_tokens(t) for t in texts]
    keys = [keyword_key(prefix, t) for t in texts]
    found = {key: orjson.loads(blob) for key, blob in cache.get_many(sorted(set(keys))).items()}
    new = {key: keyword_tokens(text) for key, text in zip(keys, texts) if key not in found}
    if new:
        cache.put_many({key: orjson.dumps(tokens) for key, tokens in new.items()})
    return [found[key] if key in found else new[key] for key in keys]


def read_bm25(directory: Path):
    """The BM25 index, its score matrix memory-mapped: a query reads the columns of its tokens,
    not the whole matrix (a cold process at 100k chunks would read ~40 MB first)."""
    import bm25s

    return bm25s.BM25.load(str(directory), mmap=True)
