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
    lengths = [len(e.ids) for e in tokenizer.encode_batch([c.embedding_text for c in chunks])]
    texts: list[str] = []
    rows: list[int] = []
    for row, (chunk, length) in enumerate(zip(chunks, lengths)):
        pieces = [chunk.embedding_text]
        if length > window_tokens:
            pieces += code_windows(chunk, window_tokens)
        texts += pieces
        rows += [row] * len(pieces)
    return texts, np.asarray(rows, dtype=np.int32)


def code_windows(chunk: Chunk, window_tokens: int) -> list[str]:
    """The chunk's code in consecutive line groups, each with the short header, each fitting
    `window_tokens` word pieces (a single longer line stays whole: the model truncates it)."""
    tokenizer = model_tokenizer()
    header = "\n".join(row for row in chunk.metadata.get("header", "").split("\n")
                       if row.startswith(SHORT_HEADER_ROWS))
    budget = max(MIN_CODE_TOKENS, window_tokens - len(tokenizer.encode(header).ids))
    lines = chunk.text.split("\n")
    costs = [len(e.ids) + 1 for e in tokenizer.encode_batch(lines, add_special_tokens=False)]  # +1: the newline
    return [f"{header}\n" + "\n".join(group) for group in line_groups(lines, costs, budget)]
