"""What a process that indexes the same repository again (`ragstream index --watch`) keeps
between its builds, per index folder, so a re-index after an edit redoes only what the edit
changed: each file's redacted text, each chunk's keyword terms (their tokens numbered) and
embedding texts, the word pieces of each file line, each chunk text's token count, each parse
record's JSON, and the last build's parse records, graph and chunks.

Every entry is keyed by what it is made from (a text, a line, a parse key, the settings that
shape it) or checked against it (a chunk, against its node's neighbourhood in the new graph),
so it is right for any later build whatever changed in between; each build leaves
only the entries it used, so nothing accumulates. A build that starts over (no previous index,
`--rebuild`) starts from an empty state, and a build in a new process makes the same index from
the caches on disk.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ragstream.config import AclSettings, IndexSettings
from ragstream.index.chunk_reuse import BuiltChunks
from ragstream.index.fill import ChunkTexts
from ragstream.index.graph_reuse import BuiltGraph
from ragstream.index.graph_text import GraphText
from ragstream.index.keyword_scores import Terms, TokenNumbers
from ragstream.index.model import Chunk
from ragstream.index.python.calls.link import LineFreeFacts
from ragstream.index.store import IndexLocation, ParseRecord, forget_parse_records
from ragstream.index.walk import SourceFile, WalkResult


@dataclass
class WarmState:
    texts: dict[str, SourceFile] = field(default_factory=dict)  # text key -> a walked file, its text redacted
    keyword_terms: dict[str, Terms] = field(default_factory=dict)  # keyword key -> the text's terms
    token_numbers: TokenNumbers = field(default_factory=TokenNumbers)  # those terms' tokens, numbered
    chunk_texts: dict[tuple, ChunkTexts] = field(default_factory=dict)  # what `TextPlan.of` keeps
    line_pieces: dict[str, int] = field(default_factory=dict)  # file or header line -> word pieces
    token_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # encoding -> chunk text -> tokens
    parse_json: dict[str, bytes] = field(default_factory=dict)  # parse key -> the parse result's JSON
    chunked: BuiltChunks | None = None  # the last build's graph, texts and chunks (`chunk_reuse`)
    linked: BuiltGraph | None = None  # the last build's parse records and graph (`graph_reuse`)
    line_free: LineFreeFacts = field(default_factory=LineFreeFacts)  # each Python file's solve inputs
    graph_text: GraphText | None = None  # the texts written of that graph, labelled (`graph_text`)
    graph_acl: AclSettings | None = None  # the access settings it was labelled under
    chunk_json: dict[str, tuple[Chunk, bytes]] = field(default_factory=dict)  # chunk id -> the chunk written, its line


_STATES: dict[Path, WarmState] = {}
_WALKS: dict[Path, tuple[IndexSettings, WalkResult]] = {}  # index folder -> the last walk of its files


def keep_walk(location: IndexLocation, settings: IndexSettings, walked: WalkResult) -> None:
    """Remember what a build of the index at `location` walked (files without text will do), for
    the next build to take it and be told what changed since (`walk.walk_told`)."""
    _WALKS[location.index_dir] = (copy.deepcopy(settings), walked)


def take_walk(location: IndexLocation, settings: IndexSettings) -> WalkResult | None:
    """The walk `keep_walk` kept under these settings, taken: a build that fails after it leaves
    none, so the next one walks everything (the changes it was told of are not lost)."""
    kept = _WALKS.pop(location.index_dir, None)
    return kept[1] if kept is not None and kept[0] == settings else None


def warm_state(location: IndexLocation, start_over: bool) -> WarmState:
    """This process's state for the index at `location`; an empty one when `start_over`."""
    if start_over or location.index_dir not in _STATES:
        _STATES[location.index_dir] = WarmState()
    return _STATES[location.index_dir]


def has_warm_state(location: IndexLocation) -> bool:
    """Whether this process has built the index at `location` (or primed its state: `build.prime_warm_state`)."""
    return location.index_dir in _STATES


def forget(location: IndexLocation) -> None:
    """Drop all this process keeps for the index (the parse records included): its next build
    runs as one in a new process would."""
    _STATES.pop(location.index_dir, None)
    _WALKS.pop(location.index_dir, None)
    forget_parse_records(location)


def parsed_json(records: dict[str, ParseRecord], blobs: dict[str, bytes]) -> bytes:
    """`records` as `store.write_json` writes them, each parse result's JSON taken from `blobs`
    (parse key -> JSON, as the parse cache keeps it) where it is there: re-encoding every file's
    parse result was most of writing them."""
    rows = (orjson.dumps(path) + b':{"key":' + orjson.dumps(record.key) + b',"parsed":'
            + (blobs.get(record.key) or orjson.dumps(record.parsed)) + b"}"
            for path, record in records.items())
    return b"{" + b",".join(rows) + b"}"


def chunks_jsonl(chunks: list[Chunk], kept: dict[str, tuple[Chunk, bytes]]) -> bytes:
    """`chunks` as `store.write_jsonl` writes them, the line of a chunk the last build wrote (the
    same object, taken as it was: `chunk_reuse`) from `kept`, which is left holding these."""
    lines = []
    for chunk in chunks:
        known = kept.get(chunk.id)
        lines.append(known[1] if known is not None and known[0] is chunk else orjson.dumps(chunk) + b"\n")
    kept.clear()
    kept.update((chunk.id, (chunk, line)) for chunk, line in zip(chunks, lines))
    return b"".join(lines)
