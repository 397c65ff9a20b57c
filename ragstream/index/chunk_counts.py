"""Token counts for the chunk build, remembered between builds: counting is most of chunking's
time, and after an edit almost every chunk's text is one the previous build counted. A chunk's
count comes from the previous chunks; a long body's per-line costs (what splits it into parts)
from the repository's cache."""
from __future__ import annotations

import hashlib

import orjson

from ragstream.index.blob_cache import BlobCache
from ragstream.token_count import TokenCounter


class RememberedCounts:
    """`count` and `line_costs` of `counter`, answered from `known` (chunk text -> tokens, the
    previous build's, same encoding) and from `cache` (under keys starting with `prefix`) where
    they can be; `save` keeps the line costs computed meanwhile. A text counted over `split_over`
    tokens keeps its tokens until its line costs are asked for: a body over a chunk's limit is
    split by them, and is not encoded again."""

    def __init__(self, counter: TokenCounter, known: dict[str, int], cache: BlobCache, prefix: str,
                 split_over: int | None = None):
        self._counter = counter
        self._known = known
        self._cache = cache
        self._prefix = f"{prefix}line_costs:{counter.name}:"
        self._new: dict[str, list[int]] = {}  # this build's line costs, by key
        self._split_over = split_over
        self._tokens: dict[str, list[int]] = {}  # texts over `split_over` -> their tokens, until split

    def count(self, text: str) -> int:
        if text in self._known:
            return self._known[text]
        tokens = self._counter.encode(text)
        if self._split_over is not None and len(tokens) > self._split_over:
            self._tokens[text] = tokens
        return len(tokens)

    def line_costs(self, lines: list[str]) -> list[int]:
        text = "\n".join(lines)
        key = self._prefix + hashlib.sha256(text.encode()).hexdigest()
        if key not in self._new:
            found = self._cache.get_many([key]).get(key)
            self._new[key] = orjson.loads(found) if found is not None else \
                self._counter.line_costs(lines, self._tokens.get(text))
        self._tokens.pop(text, None)
        return self._new[key]

    def save(self) -> None:
        """Keep the line costs this build used (one transaction)."""
        self._cache.put_many({key: orjson.dumps(costs) for key, costs in self._new.items()})
        self._tokens.clear()
