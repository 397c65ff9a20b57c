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

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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


def score_matrix(documents: list[Terms]) -> ScoreMatrix:
    """The matrix bm25s's `BM25().index((token ids, vocabulary))` makes for these documents,
    the vocabulary being their tokens in sorted order."""
    vocabulary = {token: column for column, token in enumerate(sorted({t for d in documents for t in d.tokens}))}
    columns = np.fromiter((vocabulary[t] for d in documents for t in d.tokens), dtype=np.int32,
                          count=sum(len(d.tokens) for d in documents))
    rows = np.repeat(np.arange(len(documents), dtype=np.int32), [len(d.tokens) for d in documents])
    term_counts = np.concatenate([d.counts for d in documents]) if documents else np.zeros(0, np.float32)
    # bm25s: the mean of a NumPy array of lengths; per document k1 * ((1 - b) + b * l_d / l_avg),
    # in Python floats then float64; tf (float32) / (that + tf) in float64; idf (float32) times it,
    # stored as float32
    average_length = np.array([d.length for d in documents]).mean()
    norms = np.array([K1 * ((1 - B) + B * d.length / average_length) for d in documents], dtype=np.float64)
    frequencies = np.bincount(columns, minlength=len(vocabulary))
    idf = np.zeros(len(vocabulary), dtype=np.float32)
    for frequency in np.unique(frequencies):
        if frequency:
            idf[frequencies == frequency] = _lucene_idf(int(frequency), len(documents))
    tf = term_counts.astype(np.float64)
    scores = (idf[columns].astype(np.float64) * (tf / (norms[rows] + tf))).astype(np.float32)
    order = np.argsort((columns.astype(np.int64) << 32) | rows.astype(np.int64))
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(frequencies, out=indptr[1:])
    return ScoreMatrix(scores[order], rows[order], indptr, vocabulary, len(documents))


def _lucene_idf(frequency: int, documents: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


def save_matrix(directory: Path, matrix: ScoreMatrix) -> None:
    """The matrix in bm25s's files, written by bm25s itself (its loader reads them back)."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.scores = {"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr,
                        "num_docs": matrix.documents}
    retriever.vocab_dict = dict(matrix.vocabulary)
    if "" not in retriever.vocab_dict:  # as bm25s does: the empty query token, after the last column
        retriever.vocab_dict[""] = len(matrix.vocabulary)
    retriever.nonoccurrence_array = None
    retriever.save(str(directory))
