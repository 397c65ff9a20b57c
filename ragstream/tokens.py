"""The one token counter: tiktoken encodings loaded from local files, never the network."""
from __future__ import annotations

from functools import lru_cache
from itertools import accumulate

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
        the whole text's count). One encode of the text, not one per line."""
        text = "\n".join(lines)
        tokens = self._encoding.encode(text, disallowed_special=())
        _, offsets = self._encoding.decode_with_offsets(tokens)
        starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        costs = [0] * len(lines)
        line = 0
        for offset in offsets:
            while line + 1 < len(starts) and offset >= starts[line + 1]:
                line += 1
            costs[line] += 1
        return costs


@lru_cache(maxsize=None)
def token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """The process-wide counter for an encoding (loading the BPE ranks costs ~0.5 s)."""
    return TokenCounter(encoding)
