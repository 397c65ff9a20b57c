"""Semantic windows: what the embedding model reads of each chunk.

all-MiniLM-L6-v2 reads the first 256 word pieces of a text and ignores the rest, and most code
that fixes change is longer than that: 82% of the gold functions of the commit development
questions (median 506 word pieces), against 35% of all chunks. A chunk over the window is
therefore embedded as its whole text (its header and the start of its code, as before) plus
windows over all of its code, each under a short header (file, symbol, defined in, signature,
part). Semantic search scores a chunk by its best window (MaxP).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ragstream import offline
from ragstream.index.chunks import line_groups
from ragstream.super_prompt import Chunk

SHORT_HEADER_ROWS = ("file:", "symbol:", "defined in:", "signature:", "part:")
MIN_CODE_TOKENS = 64  # a window holds at least this much code, however long its header


@lru_cache(maxsize=1)
def model_tokenizer():
    """The embedding model's own word-piece tokenizer (Rust `tokenizers`: no torch import)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(offline.embedding_model_path()) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def window_texts(chunks: list[Chunk], window_tokens: int) -> tuple[list[str], np.ndarray]:
    """(texts to embed, the chunk row of each text): every chunk's embedding text, then, for a
    chunk longer than `window_tokens` word pieces, windows over its code."""
    tokenizer = model_tokenizer()
    encodings = tokenizer.encode_batch([c.embedding_text for c in chunks])
    long_rows = [row for row, e in enumerate(encodings) if len(e.ids) > window_tokens]
    headers = [short_header(chunks[row]) for row in long_rows]
    header_lengths = [len(e.ids) for e in tokenizer.encode_batch(headers)]
    windows = {row: _windows(chunks[row], header, header_length, line_costs(chunks[row], encodings[row]),
                             window_tokens)
               for row, header, header_length in zip(long_rows, headers, header_lengths)}
    texts: list[str] = []
    rows: list[int] = []
    for row, chunk in enumerate(chunks):
        pieces = [chunk.embedding_text, *windows.get(row, ())]
        texts += pieces
        rows += [row] * len(pieces)
    return texts, np.asarray(rows, dtype=np.int32)


def code_windows(chunk: Chunk, window_tokens: int) -> list[str]:
    """The chunk's code in consecutive line groups, each with the short header, each fitting
    `window_tokens` word pieces (a single longer line stays whole: the model truncates it)."""
    tokenizer = model_tokenizer()
    header = short_header(chunk)
    return _windows(chunk, header, len(tokenizer.encode(header).ids),
                    line_costs(chunk, tokenizer.encode(chunk.embedding_text)), window_tokens)


def short_header(chunk: Chunk) -> str:
    return "\n".join(row for row in chunk.metadata.get("header", "").split("\n")
                     if row.startswith(SHORT_HEADER_ROWS))


def line_costs(chunk: Chunk, encoding) -> list[int]:
    """Word pieces of each line of the chunk's code, plus one for its newline, read off the
    encoding of its whole embedding text: the model's pre-tokenizer splits at whitespace, so no
    word piece spans a newline and a line's pieces are those it would have on its own."""
    lines = chunk.text.split("\n")
    code_start = len(chunk.embedding_text) - len(chunk.text)
    line_starts = np.cumsum([0] + [len(line) + 1 for line in lines[:-1]])
    starts = np.array([start for start, end in encoding.offsets if end > start], dtype=np.int64) - code_start
    counts = np.bincount(np.searchsorted(line_starts, starts[starts >= 0], side="right") - 1,
                         minlength=len(lines))
    return (counts + 1).tolist()


def _windows(chunk: Chunk, header: str, header_length: int, costs: list[int], window_tokens: int) -> list[str]:
    budget = max(MIN_CODE_TOKENS, window_tokens - header_length)
    return [f"{header}\n" + "\n".join(group) for group in line_groups(chunk.text.split("\n"), costs, budget)]
