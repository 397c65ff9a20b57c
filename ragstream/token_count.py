"""The one token counter: tiktoken encodings loaded from local files, never the network."""
from __future__ import annotations

from functools import cached_property, lru_cache

import numpy as np

from ragstream import offline
from ragstream.errors import ConfigError

ENCODINGS = tuple(offline.TIKTOKEN_URLS)


class TokenCounter:
    """Counts and slices text in tokens of one tiktoken encoding."""

    def __init__(self, encoding: str = "cl100k_base"):
        if encoding not in ENCODINGS:
            raise ConfigError(f"unknown token encoding {encoding!r}; choose one of {ENCODINGS}",
                              where="tokens.encoding")
        import tiktoken

        offline.install_tiktoken_files()
        self.name = encoding
        self._encoding = tiktoken.get_encoding(encoding)

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())

    def truncate(self, text: str, limit: int) -> str:
        """The longest prefix of `text` within `limit` tokens."""
        tokens = self._encoding.encode(text, disallowed_special=())
        return text if len(tokens) <= limit else self._encoding.decode(tokens[:limit])

    def line_costs(self, lines: list[str], tokens: list[int] | None = None) -> list[int]:
        """Tokens of "\n".join(lines) charged to the line each token starts in (they sum to
        the whole text's count); `tokens`: that text's, when encoded already. One encode of the
        text, not one per line; where a token starts is counted in characters over its bytes (a
        UTF-8 continuation byte belongs to the character before), as tiktoken's
        `decode_with_offsets` does, without its Python loop."""
        text = "\n".join(lines)
        if tokens is None:
            tokens = self.encode(text)
        if not tokens:
            return [0] * len(lines)
        data, sizes = self._token_bytes(text, tokens)
        char_of_byte = np.cumsum((data < 0x80) | (data >= 0xC0)) - 1
        first_bytes = np.concatenate(([0], np.cumsum(sizes[:-1])))
        starts = np.maximum(char_of_byte[first_bytes], 0)
        line_starts = np.cumsum([0] + [len(line) + 1 for line in lines[:-1]])
        return np.bincount(np.searchsorted(line_starts, starts, side="right") - 1, minlength=len(lines)).tolist()

    def _token_bytes(self, text: str, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The bytes `tokens` decode to, and how many each token has. They are the text's UTF-8
        (the encoding is lossless) unless it holds a lone surrogate, which tiktoken replaced
        before encoding: then they are decoded token by token."""
        ids = np.asarray(tokens, dtype=np.intp)
        lengths = self._token_lengths
        if int(ids.max()) < len(lengths):
            unknown = np.unique(ids[lengths[ids] < 0])
            if len(unknown):  # each token's length found once per process, when first met
                lengths[unknown] = [len(piece) for piece in self._encoding.decode_tokens_bytes(unknown.tolist())]
            sizes = lengths[ids]
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError:
                data = b""
            if len(data) == int(sizes.sum()):
                return np.frombuffer(data, dtype=np.uint8), sizes
        pieces = self._encoding.decode_tokens_bytes(tokens)
        return (np.frombuffer(b"".join(pieces), dtype=np.uint8),
                np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)))

    @cached_property
    def _token_lengths(self) -> np.ndarray:
        """Bytes of each token met so far, by number (-1: not met yet)."""
        return np.full(self._encoding.n_vocab, -1, dtype=np.int64)


@lru_cache(maxsize=None)
def token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """The process-wide counter for an encoding (loading the BPE ranks costs ~0.5 s)."""
    return TokenCounter(encoding)
