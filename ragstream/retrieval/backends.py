"""The retrieval backend the settings choose (`retrieval.backend`): callers never name one."""
from __future__ import annotations

from ragstream.config import Settings
from ragstream.index import store
from ragstream.index.embeddings import Embedder
from ragstream.retrieval.types import RetrievalBackend


def make_backend(settings: Settings, embedder: Embedder | None = None) -> RetrievalBackend:
    if settings.retrieval.backend == "milvus":
        from ragstream.retrieval.milvus_backend import MilvusBackend

        return MilvusBackend(settings, embedder)
    from ragstream.retrieval.local_backend import LocalBackend

    return LocalBackend(settings, embedder)


def publish_if_shared(settings: Settings, location: store.IndexLocation):
    """After a build: on a shared backend the new index goes live there too (its publish
    report); on the local one nothing is to be done (None)."""
    if settings.retrieval.backend != "milvus":
        return None
    from ragstream.retrieval import milvus_store

    return milvus_store.publish(milvus_store.connect(settings.milvus.uri), location)
