"""Publishing local indexes to the shared Milvus: the one a build just made, or one named."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragstream.config import Settings
from ragstream.index import store
from ragstream.retrieval import milvus_store
from ragstream.retrieval.scope import default_scope


def publish_if_shared(settings: Settings, location: store.IndexLocation) -> milvus_store.PublishReport | None:
    """After a build: on a shared backend the new index goes live there too (its publish
    report); on the local one nothing is to be done (None)."""
    if settings.retrieval.backend != "milvus":
        return None
    return milvus_store.publish(milvus_store.connect(settings.milvus.uri), location)


def publish_built(settings: Settings, repository: str | None, index: str | None) -> milvus_store.PublishReport:
    """Publish the local index (the only one when not named) to the Milvus at milvus.uri."""
    local = replace(settings, retrieval=replace(settings.retrieval, backend="local"))
    repository, index, _ = default_scope(local, repository, index, None)
    data_dir = Path(settings.index.data_dir).expanduser().resolve()
    location = store.IndexLocation(data_dir, repository, index)
    return milvus_store.publish(milvus_store.connect(settings.milvus.uri), location)
