"""Rerankers of semantic candidates. A reranker only reorders the ids it is given."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from ragstream.config import RetrievalSettings
from ragstream.errors import ConfigError
from ragstream.keyword_tokens import keyword_tokens
from ragstream.index.model import Chunk


class Reranker(Protocol):
    @property
    def name(self) -> str: ...  # read-only: the rerankers are frozen dataclasses

    def scores(self, query: str, chunks: list[Chunk], semantic_scores: list[float]) -> list[float]: ...


@dataclass(frozen=True)
class KeywordReranker:
    """Blend of min-max normalised semantic score and query-keyword coverage of the chunk."""

    semantic_weight: float
    keyword_weight: float
    name: str = "keyword_rerank"

    def scores(self, query: str, chunks: list[Chunk], semantic_scores: list[float]) -> list[float]:
        coverage = keyword_coverage(set(keyword_tokens(query)), [set(keyword_tokens(c.embedding_text)) for c in chunks])
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


def reranker_for(name: str, retrieval: RetrievalSettings) -> Reranker:
    """The reranker a request names (`keyword_rerank` or `cross_encoder`), as the settings tune it."""
    if name == "keyword_rerank":
        return KeywordReranker(retrieval.keyword_semantic_weight, retrieval.keyword_keyword_weight)
    return CrossEncoderReranker(retrieval.cross_encoder_model)


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


def keyword_coverage(query: set[str], candidates: list[set[str]]) -> list[float]:
    """Each candidate's share of the query's keywords, a keyword weighing log(1 + n / (1 + df))
    with df the candidates (of n) holding it: a long text holds many of a long question's common
    words, and the words few candidates share are the ones that tell them apart."""
    weight = {w: math.log1p(len(candidates) / (1 + sum(w in words for words in candidates))) for w in query}
    total = sum(weight.values())
    return [sum(weight[w] for w in query & words) / total if total else 0.0 for words in candidates]


def blend(first: list[float], second: list[float], first_weight: float, second_weight: float) -> np.ndarray:
    """Weighted sum of two score lists, each min-max normalised over the candidates."""
    return first_weight * _min_max(first) + second_weight * _min_max(second)


def _min_max(values: list[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    span = array.max() - array.min() if len(array) else 0.0
    return (array - array.min()) / span if span > 0 else np.zeros_like(array)
