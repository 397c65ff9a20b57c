"""The one token counter: tiktoken encodings loaded from local files, never the network."""
from __future__ import annotations

from functools import lru_cache

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


@lru_cache(maxsize=None)
def token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """The process-wide counter for an encoding (loading the BPE ranks costs ~0.5 s)."""
    return TokenCounter(encoding)
