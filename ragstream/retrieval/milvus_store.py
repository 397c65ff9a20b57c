"""An index in Milvus: names, schema, publishing a built local index, reading it back.

One collection per repository, index and generation holds one row per semantic window (the
chunk's access metadata, and its text on the chunk's first window). Beside it,
`<generation>_bm25` holds one row per chunk with its BM25 keywords (so the engine's document
count and lengths are the chunks', as in the local BM25 index) and `<generation>_files` the
manifest, the dependency graph and the change history, so every worker that can reach the
server can `expand`. An alias named after the repository and index points at the live
generation: publishing writes a whole new generation, flushes it, then moves the alias in one
call -- a publish killed before that leaves the previous generation live and untouched.

The BM25 field is fed ragstream's own code-aware tokens (`keyword_tokens.py`) joined by spaces;
they are lower-case word characters, which the engine's standard analyzer keeps as they are.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import orjson

from ragstream.errors import IndexingError, IndexLoadError, RetrievalError
from ragstream.index import store
from ragstream.index.change_history import PastChange
from ragstream.index.chunks import keyword_text
from ragstream.keyword_tokens import keyword_tokens
from ragstream.index.search_artifacts import read_faiss
from ragstream.index.model import Chunk

MAX_VARCHAR = 65_535  # bytes: Milvus' limit on one VARCHAR value
BLOB_PART = 60_000  # characters of base64 per row of the files collection
BATCH = 1_000  # rows per insert call
BM25_K1, BM25_B = 1.5, 0.75  # bm25s' defaults, so keyword ranking matches the local backend
FILES = ("manifest", "graph", "change_history")
SUFFIXES = ("_bm25", "_files")  # the collections beside a generation's windows
CHUNK_FIELDS = ["row", "chunk_id", "path", "kind", "language", "owner", "acl_tags", "classification_labels",
                "text", "meta", "windows"]
ARRAY = {"max_capacity": 256, "max_length": 512}


def connect(uri: str):
    """A client for `uri` (a local file path: Milvus Lite; `http://host:19530`: a server).
    Credentials come only from the environment: MILVUS_TOKEN (`user:password` or an API key)."""
    from pymilvus import MilvusClient
    from pymilvus.exceptions import MilvusException

    if not uri:
        raise RetrievalError("no Milvus server or file is configured", where="milvus.uri",
                             hint="set milvus.uri to a file path (Milvus Lite) or http://host:19530")
    if "://" not in uri:
        if not uri.endswith(".db"):
            raise RetrievalError(f"a Milvus Lite file must end in .db, got {uri!r}", where="milvus.uri")
        Path(uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
        uri = str(Path(uri).expanduser().resolve())
    try:
        return MilvusClient(uri=uri, token=os.environ.get("MILVUS_TOKEN", ""))
    except MilvusException as exc:
        raise RetrievalError(f"cannot reach Milvus: {exc.message}", where="milvus.uri") from exc


def alias_name(repository: str, active_index: str) -> str:
    """The live alias of an index: readable, and unique (a hash of the exact names)."""
    digest = hashlib.sha1(f"{repository}\0{active_index}".encode()).hexdigest()[:10]
    readable = re.sub(r"[^A-Za-z0-9_]", "_", f"{repository}_{active_index}")[:120]
    return f"rs_{readable}_{digest}"


def files_name(collection: str) -> str:
    return f"{collection}_files"


def bm25_name(collection: str) -> str:
    return f"{collection}_bm25"


def live_collection(client, repository: str, active_index: str) -> str:
    """The collection the index's alias points at; a clear error when it was never published."""
    alias = alias_name(repository, active_index)
    if alias not in client.list_aliases().get("aliases", []):
        raise IndexLoadError("no such index in Milvus", where=f"milvus alias {alias} ({repository}/{active_index})",
                             hint=f"publish it: ragstream publish --repository {repository} --name {active_index}")
    return client.describe_alias(alias)["collection_name"]


# --- publishing ------------------------------------------------------------------------

@dataclass(frozen=True)
class PublishReport:
    collection: str
    alias: str
    rows: int
    chunks: int
    seconds: float
    dropped: list[str]

    def summary(self) -> str:
        dropped = f"; dropped {', '.join(self.dropped)}" if self.dropped else ""
        return (f"published {self.chunks} chunks ({self.rows} window rows) to {self.collection}, live as "
                f"{self.alias}, in {self.seconds:.1f} s{dropped}")


def publish(client, location: store.IndexLocation) -> PublishReport:
    """The live local generation of `location`, written to Milvus as a new generation that
    then becomes live (older ones but the previous are dropped)."""
    started = time.perf_counter()
    stored = store.load_index(location, optional=(store.CHANGE_HISTORY,))
    collection = write_generation(client, stored)
    alias = alias_name(location.repository, location.active_index)
    previous = switch_alias(client, alias, collection)
    dropped = drop_stale(client, alias, keep={collection, previous})
    rows = client.get_collection_stats(collection)["row_count"]
    return PublishReport(collection, alias, rows, stored.manifest["counts"]["chunks"], time.perf_counter() - started,
                         dropped)


def write_generation(client, stored: store.StoredIndex) -> str:
    """Write a whole generation (windows and files) under a new name; nothing points at it yet."""
    chunks = stored.chunks()
    vectors_index: Any  # a faiss.Index
    vectors_index, window_rows = read_faiss(stored.faiss_path)
    vectors = vectors_index.reconstruct_n(0, vectors_index.ntotal)
    alias = alias_name(stored.location.repository, stored.location.active_index)
    collection = f"{alias}_g{time.time_ns():x}"
    _create(client, collection, _schema(client, vectors.shape[1]), _index_params(client))
    for batch in _batches(_window_rows(chunks, vectors, window_rows)):
        client.insert(collection, batch)
    client.flush(collection)
    _create(client, bm25_name(collection), _bm25_schema(client), _bm25_index(client))
    for batch in _batches(_keyword_rows(chunks)):
        client.insert(bm25_name(collection), batch)
    client.flush(bm25_name(collection))
    files = files_name(collection)
    _create(client, files, _files_schema(client), _files_index(client))
    blobs = {"manifest": orjson.dumps(stored.manifest),
             "graph": (stored.generation / store.GRAPH).read_bytes(),
             "change_history": _history_bytes(stored)}
    client.insert(files, [row for name, data in blobs.items() for row in _blob_rows(name, data)])
    client.flush(files)
    return collection


def _create(client, name: str, schema, index_params) -> None:
    """A loaded, empty collection. (pymilvus' synchronous index creation polls every 0.5 s even
    when the index is ready; loading waits for the index anyway.)"""
    client.create_collection(name, schema=schema)
    client.create_index(name, index_params, sync=False)
    client.load_collection(name)


def switch_alias(client, alias: str, collection: str) -> str | None:
    """Point `alias` at `collection` in one call; returns the collection it pointed at before."""
    if alias in client.list_aliases().get("aliases", []):
        previous = client.describe_alias(alias)["collection_name"]
        client.alter_alias(collection, alias)
        return previous
    client.create_alias(collection, alias)
    return None


def drop_stale(client, alias: str, keep: set) -> list[str]:
    """Drop the generations of `alias` not in `keep` (older ones, and any a killed publish left)."""
    dropped = []
    for name in client.list_collections():
        generation = next((name.removesuffix(s) for s in SUFFIXES if name.endswith(s)), name)
        if generation.startswith(f"{alias}_g") and generation not in keep:
            client.drop_collection(name)
            dropped.append(name)
    return dropped


def _window_rows(chunks: list[Chunk], vectors: np.ndarray, window_rows: np.ndarray) -> Iterator[dict]:
    windows = np.bincount(window_rows, minlength=len(chunks))
    seen: dict[int, int] = {}
    for window, row in enumerate(window_rows.tolist()):
        chunk = chunks[row]
        first = row not in seen
        seen[row] = seen.get(row, -1) + 1
        yield {"wid": f"{row}:{seen[row]}", "row": row, "first": first, **_access(chunk),
               "text": _fits(chunk.text, chunk, "text") if first else "",
               "meta": {"start_line": chunk.start_line, "end_line": chunk.end_line,
                        "symbol": chunk.symbol, "metadata": chunk.metadata} if first else {},
               "windows": int(windows[row]), "vector": vectors[window].tolist()}


def _keyword_rows(chunks: list[Chunk]) -> Iterator[dict]:
    for row, chunk in enumerate(chunks):
        yield {"row": row, **_access(chunk),
               "keywords": _fits(" ".join(keyword_tokens(keyword_text(chunk))), chunk, "keywords")}


def _access(chunk: Chunk) -> dict:
    """The fields filters read, the same in every collection of a generation."""
    meta = chunk.metadata
    return {"chunk_id": chunk.id, "path": chunk.path, "kind": chunk.kind, "language": meta.get("language", ""),
            "owner": meta.get("owner_group", ""), "acl_tags": list(meta.get("acl_tags", ())),
            "classification_labels": list(meta.get("classification_labels", ()))}


def _fits(value: str, chunk: Chunk, field: str) -> str:
    if len(value.encode()) > MAX_VARCHAR:
        raise IndexingError(f"chunk {chunk.id} has a {field} of {len(value.encode())} bytes; Milvus holds at most "
                            f"{MAX_VARCHAR}", where=f"{chunk.path}:{chunk.start_line}",
                            hint="lower chunks.max_chunk_tokens and rebuild")
    return value


def _history_bytes(stored: store.StoredIndex) -> bytes:
    path = stored.generation / store.CHANGE_HISTORY
    return path.read_bytes() if path.is_file() else b""


def _blob_rows(name: str, data: bytes) -> list[dict]:
    encoded = base64.b64encode(zlib.compress(data)).decode()
    parts = [encoded[i:i + BLOB_PART] for i in range(0, len(encoded), BLOB_PART)] or [""]
    return [{"key": f"{name}:{n}", "name": name, "part": n, "data": part, "dummy": [0.0, 0.0]}
            for n, part in enumerate(parts)]


def _batches(rows: Iterator[dict]) -> Iterator[list[dict]]:
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _schema(client, dimension: int):
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False)
    schema.add_field("wid", DataType.VARCHAR, max_length=64, is_primary=True)
    schema.add_field("row", DataType.INT64)
    schema.add_field("first", DataType.BOOL)
    _access_fields(schema)
    schema.add_field("text", DataType.VARCHAR, max_length=MAX_VARCHAR)
    schema.add_field("meta", DataType.JSON)
    schema.add_field("windows", DataType.INT64)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dimension)
    return schema


def _bm25_schema(client):
    from pymilvus import DataType, Function, FunctionType

    schema = client.create_schema(auto_id=False)
    schema.add_field("row", DataType.INT64, is_primary=True)
    _access_fields(schema)
    schema.add_field("keywords", DataType.VARCHAR, max_length=MAX_VARCHAR, enable_analyzer=True,
                     analyzer_params={"tokenizer": "standard"})
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["keywords"],
                                 output_field_names=["sparse"]))
    return schema


def _access_fields(schema) -> None:
    from pymilvus import DataType

    for name in ("chunk_id", "path", "kind", "language", "owner"):
        schema.add_field(name, DataType.VARCHAR, max_length=MAX_VARCHAR if name == "chunk_id" else 4096)
    for name in ("acl_tags", "classification_labels"):
        schema.add_field(name, DataType.ARRAY, element_type=DataType.VARCHAR, **ARRAY)


def _index_params(client):
    params = client.prepare_index_params()
    params.add_index("vector", index_type="FLAT", metric_type="IP")  # exact, as the local FAISS index
    return params


def _bm25_index(client):
    params = client.prepare_index_params()
    params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                     params={"bm25_k1": BM25_K1, "bm25_b": BM25_B})
    return params


def _files_schema(client):
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False)
    schema.add_field("key", DataType.VARCHAR, max_length=128, is_primary=True)
    schema.add_field("name", DataType.VARCHAR, max_length=64)
    schema.add_field("part", DataType.INT64)
    schema.add_field("data", DataType.VARCHAR, max_length=MAX_VARCHAR)
    schema.add_field("dummy", DataType.FLOAT_VECTOR, dim=2)  # Milvus requires a vector field
    return schema


def _files_index(client):
    params = client.prepare_index_params()
    params.add_index("dummy", index_type="FLAT", metric_type="L2")
    return params


# --- reading back ----------------------------------------------------------------------

@dataclass
class PublishedIndex:
    """What a worker reads of a published generation besides the rows: the stand-in for
    `store.StoredIndex` that the shared retrieval code asks for manifest, graph and history."""

    location: store.IndexLocation
    generation: str  # the collection
    manifest: dict
    blobs: dict[str, bytes]

    def graph(self) -> nx.MultiDiGraph:
        return nx.node_link_graph(orjson.loads(self.blobs["graph"]), directed=True,  # type: ignore[return-value]
                                  multigraph=True, edges="edges")

    def change_history(self) -> list[PastChange] | None:
        data = self.blobs.get("change_history", b"")
        if not data:
            return None
        return [PastChange(row["commit"], row["message"], tuple(row["targets"]))
                for row in map(orjson.loads, data.splitlines())]


def read_published(client, location: store.IndexLocation, collection: str) -> PublishedIndex:
    for name in (collection, *(f"{collection}{suffix}" for suffix in SUFFIXES)):
        client.load_collection(name)  # a server restart leaves collections released
    rows = client.query(files_name(collection), filter="part >= 0", output_fields=["name", "part", "data"])
    parts: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        parts.setdefault(row["name"], []).append((row["part"], row["data"]))
    missing = [name for name in FILES if name not in parts]
    if missing:
        raise IndexLoadError(f"published generation lacks {missing}", where=f"milvus collection {collection}",
                             hint="publish the index again")
    blobs = {name: _joined(p) for name, p in parts.items()}
    return PublishedIndex(location, collection, orjson.loads(blobs["manifest"]), blobs)


def _joined(parts: list[tuple[int, str]]) -> bytes:
    """One file from its rows of the files collection: (part, base64 of zlib) pairs."""
    return zlib.decompress(base64.b64decode("".join(data for _, data in sorted(parts))))


def published_manifests(client) -> list[dict]:
    """The manifest of every index live on this Milvus (one per alias), by repository and index:
    what a picker lists. Only the manifest rows are read, not the graph or the chunks."""
    manifests = []
    for alias in client.list_aliases().get("aliases", []):
        if not alias.startswith("rs_"):
            continue  # not one of ragstream's
        files = files_name(client.describe_alias(alias)["collection_name"])
        client.load_collection(files)
        rows = client.query(files, filter='name == "manifest"', output_fields=["part", "data"])
        if rows:
            manifests.append(orjson.loads(_joined([(r["part"], r["data"]) for r in rows])))
    return sorted(manifests, key=lambda m: (m["repository"], m["active_index"]))


def read_chunks(client, collection: str) -> tuple[list[Chunk], np.ndarray]:
    """The chunks in row order, and each chunk's number of windows."""
    iterator = client.query_iterator(collection, batch_size=BATCH, filter="first == true",
                                     output_fields=CHUNK_FIELDS)
    rows = []
    while batch := iterator.next():
        rows.extend(batch)
    iterator.close()
    rows.sort(key=lambda r: r["row"])
    chunks = [Chunk(r["chunk_id"], r["path"], r["meta"]["start_line"], r["meta"]["end_line"], r["kind"],
                    r["meta"]["symbol"], r["text"], r["meta"]["metadata"]) for r in rows]
    return chunks, np.array([r["windows"] for r in rows], dtype=np.int64)


def published_branch(uri: str, repository: str | None, index: str | None,
                     branch: str | None) -> tuple[str, str, str]:
    """(repository, index, branch) of a published index: the branch its manifest records."""
    for value, option in ((repository, "--repository"), (index, "--index")):
        if not value:
            raise RetrievalError(f"name the index on Milvus with {option}", where="retrieval.backend: milvus")
    assert repository and index  # both checked just above
    if branch is None:
        client = connect(uri)
        location = store.IndexLocation(Path("."), repository, index)
        branch = read_published(client, location, live_collection(client, repository, index)).manifest["branch"]
    return repository, index, branch
