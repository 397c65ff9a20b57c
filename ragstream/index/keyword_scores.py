"""BM25's score matrix, made from each chunk's term counts in a few array operations.

bm25s builds the same matrix (its defaults: Lucene BM25, k1 1.5, b 0.75, float32) by looping over
every document and every token in Python, which took most of a re-index after a one-line edit.
Here each text's distinct terms and their counts are found once (`Terms`, kept by the caller
between builds: after an edit almost every chunk's text is one counted before), and the matrix is
computed over all of them at once with the arithmetic bm25s does, operation for operation and in
the same types, so the files written are bm25s's to the byte (`tests/test_keyword_scores.py`) and
searches read them as before. Every score moves with the average document length, so the
matrix is recomputed whole -- from kept counts that costs tenths of a second on 100k lines.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import orjson

EMPTY_TOKEN = "\x00empty"  # bm25s cannot index an empty document: one placeholder keeps row i = chunk i
K1, B = 1.5, 0.75  # bm25s's defaults (method and idf "lucene"), which the retrieval side loads with


@dataclass(frozen=True)
class Terms:
    """One text's distinct keyword tokens (in order of first appearance), how often each
    occurs, and how many tokens the text has."""

    tokens: tuple[str, ...]
    counts: np.ndarray  # float32, one per token
    length: int

    @classmethod
    def of(cls, tokens: list[str]) -> "Terms":
        counted = Counter(tokens or [EMPTY_TOKEN])
        return cls(tuple(counted), np.fromiter(counted.values(), dtype=np.float32, count=len(counted)),
                   max(len(tokens), 1))


@dataclass(frozen=True)
class ScoreMatrix:
    """bm25s's CSC score matrix (documents x vocabulary) and its vocabulary (token -> column)."""

    data: np.ndarray  # float32 scores, column by column
    indices: np.ndarray  # int32 document of each score
    indptr: np.ndarray  # int64 column starts
    vocabulary: dict[str, int]
    documents: int


FORGOTTEN_TOKENS = 50_000  # numbered tokens no document has any more, beyond twice the vocabulary, kept at most


class TokenNumbers:
    """A number for each token met (never renumbered), each document's tokens as those numbers,
    and the last vocabulary: what a process that builds again keeps (`WarmState`), so that the
    matrix of an edit is made by array operations over kept numbers, with a pass over the tokens
    of the new documents only. A fresh one makes the matrix from scratch."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}  # in order of numbering: its keys are the tokens by number
        self.of: dict[int, tuple[Terms, np.ndarray]] = {}  # id(a document) -> it, its tokens' numbers
        self.present: np.ndarray = np.zeros(0, dtype=bool)  # by number: in the last vocabulary
        self.column: np.ndarray = np.zeros(0, dtype=np.int32)  # by number: the last vocabulary's column
        self.vocabulary: dict[str, int] = {}

    def numbers(self, documents: list[Terms]) -> list[np.ndarray]:
        """Each document's tokens' numbers (kept for the next call: only these documents')."""
        if len(self.number) > 2 * len(self.vocabulary) + FORGOTTEN_TOKENS:  # most numbered tokens are gone
            self.__init__()  # type: ignore[misc]  # numbered afresh
        kept, number, made = self.of, self.number, {}
        for document in documents:
            found = kept.get(id(document))
            if found is None or found[0] is not document:
                found = (document, np.fromiter((number.setdefault(t, len(number)) for t in document.tokens),
                                               dtype=np.int32, count=len(document.tokens)))
            made[id(document)] = found
        self.of = made
        return [made[id(document)][1] for document in documents]

    def columns(self, numbers: np.ndarray) -> np.ndarray:
        """The vocabulary's column of each number: the tokens present, in sorted order (made
        again only when the tokens present changed)."""
        present = np.zeros(len(self.number), dtype=bool)
        present[numbers] = True
        if not np.array_equal(present, self.present):
            tokens = list(self.number)
            self.vocabulary = {token: column for column, token in
                               enumerate(sorted(tokens[i] for i in np.flatnonzero(present)))}
            self.column = np.full(len(tokens), -1, dtype=np.int32)
            self.column[[self.number[t] for t in self.vocabulary]] = np.arange(len(self.vocabulary), dtype=np.int32)
            self.present = present
        return self.column[numbers]


def score_matrix(documents: list[Terms], kept: TokenNumbers | None = None) -> ScoreMatrix:
    """The matrix bm25s's `BM25().index((token ids, vocabulary))` makes for these documents,
    the vocabulary being their tokens in sorted order; `kept`: the numbers a previous call kept."""
    numbering = kept if kept is not None else TokenNumbers()
    numbers = numbering.numbers(documents)
    sizes = np.fromiter(map(len, numbers), dtype=np.int64, count=len(numbers))
    columns = numbering.columns(np.concatenate(numbers) if numbers else np.zeros(0, np.int32))
    vocabulary = numbering.vocabulary
    rows = np.repeat(np.arange(len(documents), dtype=np.int32), sizes)
    term_counts = np.concatenate([d.counts for d in documents]) if documents else np.zeros(0, np.float32)
    # bm25s: the mean of a NumPy array of lengths; per document k1 * ((1 - b) + b * l_d / l_avg),
    # in Python floats then float64 (here element-wise, the same operations in the same order);
    # tf (float32) / (that + tf) in float64; idf (float32) times it, stored as float32
    lengths = np.array([d.length for d in documents])
    average_length = lengths.mean()
    norms = K1 * ((1 - B) + B * lengths / average_length)
    frequencies = np.bincount(columns, minlength=len(vocabulary))
    idf = np.zeros(len(vocabulary), dtype=np.float32)
    for frequency in np.unique(frequencies):
        if frequency:
            idf[frequencies == frequency] = _lucene_idf(int(frequency), len(documents))
    tf = term_counts.astype(np.float64)
    scores = (idf[columns].astype(np.float64) * (tf / (norms[rows] + tf))).astype(np.float32)
    # By column, rows in order within one (a document's tokens are distinct, its rows ascending):
    # a stable sort of the columns, a radix sort when they fit 16 bits.
    order = np.argsort(columns.astype(np.uint16) if len(vocabulary) <= 1 << 16 else columns, kind="stable")
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(frequencies, out=indptr[1:])
    return ScoreMatrix(scores[order], rows[order], indptr, vocabulary, len(documents))


def _lucene_idf(frequency: int, documents: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


def save_matrix(directory: Path, matrix: ScoreMatrix) -> None:
    """The matrix in bm25s's files, as its `BM25().save` writes them (its loader reads them back;
    `tests/test_warm_rebuild.py` compares them byte for byte). Written here rather than by bm25s,
    whose import (scipy's sparse arrays and their array API layer) cost a cold build ~0.09 CPU s."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, array in (("data", matrix.data), ("indices", matrix.indices), ("indptr", matrix.indptr)):
        np.save(directory / f"{name}.csc.index.npy", array, allow_pickle=False)
    vocabulary = dict(matrix.vocabulary)
    if "" not in vocabulary:  # as bm25s does: the empty query token, after the last column
        vocabulary[""] = len(matrix.vocabulary)
    (directory / "vocab.index.json").write_bytes(orjson.dumps(vocabulary))  # bm25s dumps with orjson when it can
    params = {"k1": K1, "b": B, "delta": 0.5, "method": "lucene", "idf_method": "lucene", "dtype": "float32",
              "int_dtype": "int32", "num_docs": matrix.documents, "version": _bm25s_version(), "backend": "numpy"}
    (directory / "params.index.json").write_text(json.dumps(params, indent=4), encoding="utf-8")


@lru_cache(maxsize=1)
def _bm25s_version() -> str:
    """bm25s's `__version__` (its distribution's version, "0.0.0" when it has none), which its
    parameters file records."""
    try:
        return version("bm25s")
    except PackageNotFoundError:
        return "0.0.0"
