"""The one token counter: tiktoken encodings loaded from local files, never the network."""
from __future__ import annotations

from functools import lru_cache

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
        return len(self._encoding.encode(text, disallowed_special=()))

    def truncate(self, text: str, limit: int) -> str:
        """The longest prefix of `text` within `limit` tokens."""
        tokens = self._encoding.encode(text, disallowed_special=())
        return text if len(tokens) <= limit else self._encoding.decode(tokens[:limit])

    def line_costs(self, lines: list[str]) -> list[int]:
        """Tokens of "\n".join(lines) charged to the line each token starts in (they sum to
        the whole text's count). One encode of the text, not one per line; where a token starts
        is counted in characters over its bytes (a UTF-8 continuation byte belongs to the
        character before), as tiktoken's `decode_with_offsets` does, without its Python loop."""
        tokens = self._encoding.encode("\n".join(lines), disallowed_special=())
        if not tokens:
            return [0] * len(lines)
        pieces = self._encoding.decode_tokens_bytes(tokens)
        data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
        char_of_byte = np.cumsum((data < 0x80) | (data >= 0xC0)) - 1
        first_bytes = np.cumsum([0] + [len(piece) for piece in pieces[:-1]])
        starts = np.maximum(char_of_byte[first_bytes], 0)
        line_starts = np.cumsum([0] + [len(line) + 1 for line in lines[:-1]])
        return np.bincount(np.searchsorted(line_starts, starts, side="right") - 1, minlength=len(lines)).tolist()


@lru_cache(maxsize=None)
def token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """The process-wide counter for an encoding (loading the BPE ranks costs ~0.5 s)."""
    return TokenCounter(encoding)
