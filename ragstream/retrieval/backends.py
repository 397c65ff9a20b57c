"""The retrieval backend the settings choose (`retrieval.backend`): callers never name one."""
from __future__ import annotations

from ragstream.config import Settings
from ragstream.index.embeddings import Embedder
from ragstream.retrieval.types import RetrievalBackend


def make_backend(settings: Settings, embedder: Embedder | None = None) -> RetrievalBackend:
    if settings.retrieval.backend == "milvus":
        from ragstream.retrieval.milvus_backend import MilvusBackend

        return MilvusBackend(settings, embedder)
    from ragstream.retrieval.local_backend import LocalBackend

    return LocalBackend(settings, embedder)
