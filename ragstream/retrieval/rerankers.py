"""Rerankers of semantic candidates. A reranker only reorders the ids it is given."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from ragstream.errors import ConfigError
from ragstream.index.keywords import keyword_tokens
from ragstream.super_prompt import Chunk


class Reranker(Protocol):
    name: str

    def scores(self, query: str, chunks: list[Chunk], semantic_scores: list[float]) -> list[float]: ...


@dataclass(frozen=True)
class KeywordReranker:
    """Blend of min-max normalised semantic score and query-keyword coverage of the chunk."""

    semantic_weight: float
    keyword_weight: float
    name: str = "keyword_rerank"

    def scores(self, query: str, chunks: list[Chunk], semantic_scores: list[float]) -> list[float]:
        wanted = set(keyword_tokens(query))
        coverage = [keyword_coverage(wanted, set(keyword_tokens(c.embedding_text))) for c in chunks]
        return blend(semantic_scores, coverage, self.semantic_weight, self.keyword_weight).tolist()


@dataclass(frozen=True)
class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder scoring (query, chunk text) pairs."""

    model: str
    name: str = "cross_encoder"

    def scores(self, query: str, chunks: list[Chunk], semantic_scores: list[float]) -> list[float]:
        encoder = load_cross_encoder(self.model)
        return [float(s) for s in encoder.predict([(query, c.embedding_text) for c in chunks],
                                                   show_progress_bar=False)]


@lru_cache(maxsize=4)
def load_cross_encoder(model: str):
    """The cross-encoder, once per process; an unavailable one is a configuration error."""
    hint = ("set retrieval.cross_encoder_model to a local model folder, or use "
            "rerank=keyword_rerank (the deterministic reranker)")
    if not model:
        raise ConfigError("rerank=cross_encoder but no cross-encoder is configured", where="retrieval.cross_encoder_model",
                          hint=hint)
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(model, device="cpu")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cross-encoder {model!r} is not available offline ({exc})",
                          where="retrieval.cross_encoder_model", hint=hint) from exc


def keyword_coverage(query: set[str], words: set[str]) -> float:
    """The share of the query's keywords a text contains."""
    return len(query & words) / len(query) if query else 0.0


def blend(first: list[float], second: list[float], first_weight: float, second_weight: float) -> np.ndarray:
    """Weighted sum of two score lists, each min-max normalised over the candidates."""
    return first_weight * _min_max(first) + second_weight * _min_max(second)


def _min_max(values: list[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    span = array.max() - array.min() if len(array) else 0.0
    return (array - array.min()) / span if span > 0 else np.zeros_like(array)
