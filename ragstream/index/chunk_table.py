"""The chunks of an index read by row: what a cold process reads instead of parsing every chunk.

`chunks.jsonl` holds one chunk a line. At build time the start of every line and the columns a
search needs of every row (its id, its path, and which access values it carries: tags, labels,
kind, language) are written beside it; a loaded `ChunkTable` parses a chunk the first time its
row is read. An index built before these files is read whole, as before (`StoredIndex.chunks`).
"""
from __future__ import annotations

import io
import mmap
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from ragstream.index.model import Chunk
from ragstream.index.store import CHUNKS, write_bytes

FOLDER = "chunk_table"  # inside a generation
_META = "meta.json"
_ARRAYS = ("line_starts", "path_ids", "value_rows", "value_starts")


@dataclass
class AccessColumns:
    """Per row of an index: its path, and for each access value (an ACL tag, a classification
    label, a kind, a language) the rows that carry it -- what `retrieval/visibility.Visibility`
    turns a filter into a row mask with."""

    size: int
    paths: list[str]  # distinct paths, in the order of their first rows
    path_ids: np.ndarray  # per row: its path's number
    rows: dict[tuple[str, str], np.ndarray]  # ("acl_tags" | "labels" | "kind" | "language", value) -> rows

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> "AccessColumns":
        rows: dict[tuple[str, str], list[int]] = defaultdict(list)
        paths: dict[str, int] = {}
        path_ids = []
        for row, chunk in enumerate(chunks):
            meta = chunk.metadata
            for tag in meta.get("acl_tags", ()):
                rows[("acl_tags", tag)].append(row)
            for label in meta.get("classification_labels", ()):
                rows[("labels", label)].append(row)
            rows[("kind", chunk.kind)].append(row)
            rows[("language", meta.get("language", ""))].append(row)
            path_ids.append(paths.setdefault(chunk.path, len(paths)))
        return cls(len(chunks), list(paths), np.array(path_ids, dtype=np.int64),
                   {key: np.array(value, dtype=np.int64) for key, value in rows.items()})

    def carrying(self, field: str, value: str) -> np.ndarray:
        """The rows that carry `value` in `field` (none: empty)."""
        return self.rows.get((field, value), np.empty(0, dtype=np.int64))


def write_chunk_table(generation: Path, chunks: Sequence[Chunk]) -> None:
    """Beside the generation's `chunks.jsonl` (written already): where each line starts, each
    row's id, and the access columns."""
    folder = generation / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    text = np.frombuffer((generation / CHUNKS).read_bytes(), dtype=np.uint8)
    ends = np.flatnonzero(text == ord("\n"))  # JSON escapes line breaks inside a chunk
    if len(ends) != len(chunks):
        raise ValueError(f"{CHUNKS} holds {len(ends)} lines for {len(chunks)} chunks")
    columns = AccessColumns.of(chunks)
    keys = list(columns.rows)
    value_rows = [columns.rows[key] for key in keys]
    arrays = {"line_starts": np.concatenate([[0], ends + 1]).astype(np.int64),
              "path_ids": columns.path_ids,
              "value_rows": np.concatenate(value_rows) if value_rows else np.empty(0, dtype=np.int64),
              "value_starts": np.cumsum([0] + [len(rows) for rows in value_rows]).astype(np.int64)}
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        write_bytes(folder / f"{name}.npy", buffer.getvalue())
    write_bytes(folder / _META, orjson.dumps({
        "ids": [chunk.id for chunk in chunks], "paths": columns.paths, "values": keys,
        "parts": [[row, chunk.node_id] for row, chunk in enumerate(chunks) if chunk.node_id != chunk.id]}))


def read_chunk_table(generation: Path) -> "ChunkTable | None":
    """The chunks of a generation by row; None when it has no chunk table (built before it)."""
    folder = generation / FOLDER
    if not (folder / _META).is_file():
        return None
    meta = orjson.loads((folder / _META).read_bytes())
    arrays = {name: np.load(folder / f"{name}.npy", allow_pickle=False) for name in _ARRAYS}
    starts, rows = arrays["value_starts"], arrays["value_rows"]
    columns = AccessColumns(len(meta["ids"]), meta["paths"], arrays["path_ids"],
                            {(field, value): rows[starts[i]:starts[i + 1]]
                             for i, (field, value) in enumerate(meta["values"])})
    with open(generation / CHUNKS, "rb") as handle:
        # Mapped, not read: only the rows asked for are touched. The mapping outlives the file
        # (a re-index deletes the generation a long-running reader may still be using).
        text = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if arrays["line_starts"][-1] else b""
    nodes = list(meta["ids"])
    for row, node in meta["parts"]:
        nodes[row] = node
    return ChunkTable(meta["ids"], nodes, columns, text, arrays["line_starts"])


class ChunkTable(Sequence[Chunk]):
    """The chunks of a generation, each parsed the first time its row is read; `ids`, `nodes`
    and `columns` answer without parsing any."""

    def __init__(self, ids: list[str], nodes: list[str], columns: AccessColumns, text: mmap.mmap | bytes,
                 line_starts: np.ndarray):
        self.ids = ids
        self.nodes = nodes  # per row: the graph node its chunk is (part of)
        self.columns = columns
        self._text = text
        self._starts = line_starts
        self._parsed: dict[int, Chunk] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self[r] for r in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        chunk = self._parsed.get(row)
        if chunk is None:
            if not 0 <= row < len(self):
                raise IndexError(row)
            chunk = self._parsed[row] = Chunk(**orjson.loads(self._text[self._starts[row]:self._starts[row + 1]]))
        return chunk

    def __iter__(self) -> Iterator[Chunk]:
        return (self[row] for row in range(len(self)))


def chunk_ids(chunks: Sequence[Chunk]) -> list[str]:
    """Every row's chunk id (a chunk table's without parsing a chunk)."""
    return chunks.ids if isinstance(chunks, ChunkTable) else [chunk.id for chunk in chunks]


def chunk_nodes(chunks: Sequence[Chunk]) -> list[str]:
    """Every row's graph node (`Chunk.node_id`; a chunk table's without parsing a chunk)."""
    return chunks.nodes if isinstance(chunks, ChunkTable) else [chunk.node_id for chunk in chunks]


def access_columns(chunks: Sequence[Chunk]) -> AccessColumns:
    """The access columns of the rows (a chunk table's as written at build time)."""
    return chunks.columns if isinstance(chunks, ChunkTable) else AccessColumns.of(chunks)


def of_kind(chunks: Sequence[Chunk], kind: str, language: str) -> list[Chunk]:
    """The chunks of one kind and language, in row order (of a chunk table: only those parsed)."""
    if isinstance(chunks, ChunkTable):
        both = np.zeros(len(chunks), dtype=np.int8)
        both[chunks.columns.carrying("kind", kind)] += 1
        both[chunks.columns.carrying("language", language)] += 1
        return [chunks[int(row)] for row in np.flatnonzero(both == 2)]
    return [chunk for chunk in chunks if chunk.kind == kind and chunk.metadata.get("language") == language]


def row_path(chunks: Sequence[Chunk], row: int) -> str:
    """The path of a row's chunk (a chunk table's from its columns, the chunk not parsed)."""
    if isinstance(chunks, ChunkTable):
        return chunks.columns.paths[chunks.columns.path_ids[row]]
    return chunks[row].path


def row_node(chunks: Sequence[Chunk], row: int) -> str:
    """The graph node of a row's chunk (a chunk table's from its columns, the chunk not parsed)."""
    return chunks.nodes[row] if isinstance(chunks, ChunkTable) else chunks[row].node_id
