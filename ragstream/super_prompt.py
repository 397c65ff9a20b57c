"""The state a question accumulates. For now: `Chunk`, the unit every index and stage shares.

(The `SuperPrompt` dataclass itself arrives with the stages; `Chunk` lives here because every
layer, from the index to the prompt builder, hands chunks around.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of code or text; its id is its graph node's id (plus `#pN` for
    the parts of a split chunk)."""

    id: str
    path: str
    start_line: int
    end_line: int
    kind: str  # the node kind: FUNCTION, METHOD, CLASS, TABLE, PROCEDURE, TYPE, MODULE, FILE ...
    symbol: str  # qualified name, or the path for file-level chunks
    text: str  # the code, secrets redacted, child definitions elided to one line each
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        """The graph node this chunk is (part of)."""
        return self.metadata.get("parent_chunk") or self.id

    @property
    def embedding_text(self) -> str:
        """What is embedded and keyword-indexed: the context header above the code."""
        return f"{self.metadata.get('header', '')}\n{self.text}"
