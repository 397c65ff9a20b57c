"""The retrieval backend the settings choose (`retrieval.backend`): callers never name one."""
from __future__ import annotations

from ragstream.config import Settings
from ragstream.errors import RetrievalError
from ragstream.index.embeddings import Embedder
from ragstream.retrieval.store_backend import StoreBackend


def make_backend(settings: Settings, embedder: Embedder | None = None) -> StoreBackend:
    if settings.retrieval.backend == "milvus":
        from ragstream.retrieval.milvus_backend import MilvusBackend

        return MilvusBackend(settings, embedder)
    from ragstream.retrieval.local_backend import LocalBackend

    return LocalBackend(settings, embedder)


SOURCES = ("", "local", "shared")  # where an index is served from: the configured backend, the data folder, Milvus


def serves_locally(settings: Settings, source: str) -> bool:
    """Whether an index asked for from `source` is served from the data folder; an unknown
    source, or a shared one with no Milvus configured, is an error."""
    if source not in SOURCES:
        raise RetrievalError(f"unknown index source {source!r}; choose local or shared", where="index_source")
    shared = settings.retrieval.backend == "milvus"
    if source == "shared" and not shared:
        raise RetrievalError("no shared index is configured", where="retrieval.backend",
                             hint="set retrieval.backend: milvus and milvus.uri to ask a published index")
    return source == "local" or not shared


def make_backend_for(settings: Settings, source: str, embedder: Embedder | None = None) -> StoreBackend:
    """The backend that serves an index from `source` (`Scope.index_source`)."""
    if serves_locally(settings, source):
        from ragstream.retrieval.local_backend import LocalBackend

        return LocalBackend(settings, embedder)
    return make_backend(settings, embedder)
