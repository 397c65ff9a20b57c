"""Semantic windows: what the embedding model reads of each chunk.

all-MiniLM-L6-v2 reads the first 256 word pieces of a text and ignores the rest, and most code
that fixes change is longer than that (docs/EVALUATION.md has the figures). A chunk over the
window is therefore embedded as its whole text (its header and the start of its code) plus
windows over all of its code, each under a short header (file, symbol, defined in, signature,
part). Semantic search scores a chunk by its best window (MaxP).
"""
from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from ragstream import offline
from ragstream.index.chunks import line_groups
from ragstream.index.model import Chunk

SHORT_HEADER_ROWS = ("file:", "symbol:", "defined in:", "signature:", "part:")
MIN_CODE_TOKENS = 64  # a window holds at least this much code, however long its header
SPECIAL_TOKENS = 2  # [CLS] and [SEP], around every text the model reads


@lru_cache(maxsize=1)
def model_tokenizer():
    """The embedding model's own word-piece tokenizer (Rust `tokenizers`: no torch import)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(offline.embedding_model_path()) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class LinePieces:
    """Word pieces of each distinct line. The model's pre-tokenizer splits at whitespace, so no
    piece spans a newline: a text's pieces are its lines' plus [CLS] and [SEP]. A build counts
    its files' lines here on a thread while it makes the graph (the tokenizer runs in Rust,
    without the GIL), so planning the windows then tokenizes little more than the headers."""

    def __init__(self, texts: Iterable[str] = (), known: dict[str, int] | None = None):
        """`known`: lines counted before (by a previous build of this process): those of `texts`
        are taken from it, the others counted."""
        lines = {line for text in texts for line in text.split("\n")}
        known = known or {}
        self._counts: dict[str, int] = {line: known[line] for line in lines if line in known}
        unknown = [line for line in lines if line not in self._counts]
        self._counter = threading.Thread(target=self._count, args=(unknown,), daemon=True)
        self._counter.start()

    @property
    def counted(self) -> dict[str, int]:
        """Every line counted so far and its pieces (for the next build to pass as `known`)."""
        self._counter.join()
        return self._counts

    def of(self, lines: list[str]) -> list[int]:
        """The word pieces of each line, counted once each."""
        self._counter.join()
        self._count(list({line for line in lines if line not in self._counts}))
        return [self._counts[line] for line in lines]

    def _count(self, lines: list[str]) -> None:
        if lines:
            encoded = model_tokenizer().encode_batch(lines, add_special_tokens=False)
            self._counts.update(zip(lines, (len(e.ids) for e in encoded)))


def window_texts(chunks: list[Chunk], window_tokens: int,
                 pieces: LinePieces | None = None) -> tuple[list[str], np.ndarray]:
    """(texts to embed, the chunk row of each text): every chunk's embedding text, then, for a
    chunk longer than `window_tokens` word pieces, windows over its code."""
    pieces = pieces or LinePieces()
    lines = [chunk.embedding_text.split("\n") for chunk in chunks]
    counts = iter(pieces.of([line for text in lines for line in text]))
    texts: list[str] = []
    rows: list[int] = []
    for row, (chunk, text) in enumerate(zip(chunks, lines)):
        costs = [next(counts) for _ in text]
        windows = code_windows(chunk, window_tokens, pieces, costs[-len(chunk.text.split("\n")):]) \
            if SPECIAL_TOKENS + sum(costs) > window_tokens else []
        texts += [chunk.embedding_text, *windows]
        rows += [row] * (1 + len(windows))
    return texts, np.asarray(rows, dtype=np.int32)


def code_windows(chunk: Chunk, window_tokens: int, pieces: LinePieces | None = None,
                 code_pieces: list[int] | None = None) -> list[str]:
    """The chunk's code in consecutive line groups, each with the short header, each fitting
    `window_tokens` word pieces (a single longer line stays whole: the model truncates it).
    `code_pieces`: each code line's word pieces, when already counted."""
    pieces = pieces or LinePieces()
    header = short_header(chunk)
    code_pieces = code_pieces or pieces.of(chunk.text.split("\n"))
    return _windows(chunk, header, SPECIAL_TOKENS + sum(pieces.of(header.split("\n"))),
                    [count + 1 for count in code_pieces], window_tokens)


def short_header(chunk: Chunk) -> str:
    return "\n".join(row for row in chunk.metadata.get("header", "").split("\n")
                     if row.startswith(SHORT_HEADER_ROWS))


def _windows(chunk: Chunk, header: str, header_length: int, costs: list[int], window_tokens: int) -> list[str]:
    budget = max(MIN_CODE_TOKENS, window_tokens - header_length)
    return [f"{header}\n" + "\n".join(group) for group in line_groups(chunk.text.split("\n"), costs, budget)]
