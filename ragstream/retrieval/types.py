"""The retrieval contract every backend implements: requests, hits, responses."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ragstream.errors import RetrievalError
from ragstream.question import not_utf8
from ragstream.retrieval.filters import RetrievalFilters

SEARCH_TYPES = ("semantic", "bm25", "hybrid")
RERANKERS = ("none", "keyword_rerank", "cross_encoder")


@dataclass(frozen=True)
class SearchRequest:
    search_type: str
    query: str
    top_k: int
    repository: str
    branch: str
    retrieval_filters: RetrievalFilters = field(default_factory=RetrievalFilters)
    active_index: str | None = None  # default: the branch
    rerank: str = "none"

    def __post_init__(self) -> None:
        check_scope(self.repository, self.branch)
        if self.search_type not in SEARCH_TYPES:
            raise RetrievalError(f"unknown search_type {self.search_type!r}; choose one of {SEARCH_TYPES}",
                                 where="search_type")
        if not isinstance(self.query, str) or not self.query.strip():
            raise RetrievalError("query is empty", where="query")
        if problem := not_utf8(self.query):
            raise RetrievalError(problem, where="query")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise RetrievalError(f"top_k must be an int >= 1, got {self.top_k!r}", where="top_k")
        if self.rerank not in RERANKERS:
            raise RetrievalError(f"unknown rerank {self.rerank!r}; choose one of {RERANKERS}", where="rerank")
        if self.rerank != "none" and self.search_type != "semantic":
            raise RetrievalError(f"rerank {self.rerank!r} works on semantic search only, not {self.search_type!r}",
                                 where="rerank")
        if not isinstance(self.retrieval_filters, RetrievalFilters):
            object.__setattr__(self, "retrieval_filters", RetrievalFilters.parse(self.retrieval_filters))


@dataclass(frozen=True)
class SearchHit:
    id: str
    score: float
    rank: int  # 1-based
    sources: dict[str, int] = field(default_factory=dict)  # per-source 1-based ranks (hybrid)


@dataclass
class SearchResponse:
    hits: list[SearchHit]
    debug: dict[str, Any] = field(default_factory=dict)


class RetrievalBackend(Protocol):
    """What stages call; FAISS, BM25 or a distributed engine hide behind it."""

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def fetch_texts(self, ids: list[str], repository: str, branch: str,
                    retrieval_filters: RetrievalFilters | dict | None,
                    active_index: str | None = None) -> dict[str, str]: ...

    def fetch_chunks(self, ids: list[str], repository: str, branch: str,
                     retrieval_filters: RetrievalFilters | dict | None,
                     active_index: str | None = None) -> list: ...

    def locations(self, ids: list[str], repository: str, branch: str,
                  retrieval_filters: RetrievalFilters | dict | None,
                  active_index: str | None = None) -> dict[str, str]: ...

    def graph(self, repository: str, branch: str, retrieval_filters: RetrievalFilters | dict | None,
              active_index: str | None = None): ...


def check_scope(repository: str, branch: str) -> None:
    """Scope is repository + branch; both must be given."""
    for name, value in (("repository", repository), ("branch", branch)):
        if not isinstance(value, str) or not value.strip():
            raise RetrievalError(f"{name} is missing or empty: every search and fetch is scoped "
                                 "to one repository and branch", where=name)
