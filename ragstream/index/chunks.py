"""Chunks: one per function, method, class, table, view, procedure or type, plus file-level code.

A chunk's text is its node's source lines with each child definition (that has a chunk of its
own) elided to one line, so no code is embedded twice. Above the code sits a context header
(file, symbol, kind, defined in, calls, called by, ...) built from the graph (`headers`: the
stored one names only neighbours no filter can hide from a caller who sees the chunk; a caller
gets one rendered for its filters); header and code together are what gets embedded and
keyword-indexed. Neither holds line numbers (they are chunk fields), so an edit that shifts
lines re-embeds only what it changed. Chunks over the token limit are split on line boundaries
into parts `<id>#p1`, `<id>#p2`, ... that name their parent.
"""
from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from typing import Protocol, TypeVar

import networkx as nx

from ragstream.index.headers import RELATION_LABELS, indexed_header
from ragstream.index.model import CHUNKABLE_KINDS, Node
from ragstream.index.model import PART_MARK, Chunk


class TokenCounts(Protocol):
    """What chunking counts with: `token_count.TokenCounter`, or one that remembers (`chunk_counts`)."""

    def count(self, text: str) -> int: ...

    def line_costs(self, lines: list[str]) -> list[int]: ...


NODE_FIELDS = tuple(f.name for f in fields(Node))
T = TypeVar("T")


def keyword_text(chunk: Chunk) -> str:
    """What BM25 indexes: the header without its relation lists, the code, and the symbol's own
    name once more. Listing callers and callees made a chunk match every word of its neighbours'
    names; the own name is what a question about this code most often says."""
    header = [row for row in chunk.metadata.get("header", "").split("\n") if not row.startswith(RELATION_LABELS)]
    return "\n".join([*header, chunk.text, chunk.symbol.rsplit(".", 1)[-1]])


def build_chunks(graph: nx.MultiDiGraph, texts: dict[str, str], counter: TokenCounts,
                 max_tokens: int, max_names: int, reusable: Mapping[str, list[Chunk]] | None = None) -> list[Chunk]:
    """Chunks of every chunkable node of the files in `texts` (path -> text), in id order;
    a node in `reusable` (`chunk_reuse`: its chunks would come out the same) keeps those."""
    reusable = reusable or {}
    nodes = [Node(**{f: data[f] for f in NODE_FIELDS}) for _, data in graph.nodes(data=True)]
    by_id = {n.id: n for n in nodes}
    roots = {n.path: n.id for n in nodes if n.kind in ("FILE", "MODULE")}
    children: dict[str, list[Node]] = {}
    for node in nodes:
        if node.kind in CHUNKABLE_KINDS and node.path in texts:
            owner = _chunk_owner(node, by_id, roots)
            if owner:
                children.setdefault(owner, []).append(node)
    lines_of: dict[str, list[str]] = {}
    made: list[tuple[Node, list[tuple[int, str]]] | list[Chunk]] = []  # per chunked node: its body, or its chunks as they were
    for node in sorted(nodes, key=lambda n: n.id):
        if node.kind not in CHUNKABLE_KINDS or node.path not in texts:
            continue
        if node.id in reusable:
            made.append(reusable[node.id])
            continue
        if node.path not in lines_of:
            lines_of[node.path] = texts[node.path].split("\n")
        body = _elided_text(node, lines_of[node.path], children.get(node.id, []))
        if body is not None:
            made.append((node, body))
    bodies = [item for item in made if isinstance(item, tuple)]
    with ThreadPoolExecutor(1) as pool:
        # The bodies' token counts (tiktoken runs without the GIL) beside the headers (Python).
        counted = pool.submit(lambda: [counter.count("\n".join(t for _, t in body)) for _, body in bodies])
        headers = [indexed_header(graph, node.id, max_names) for node, _ in bodies]
        counts = iter(zip(headers, counted.result()))
    chunks: list[Chunk] = []
    for item in made:
        if isinstance(item, tuple):
            node, body = item
            header, tokens = next(counts)
            chunks.extend(_split(node, body, header, counter, max_tokens, graph.nodes[node.id].get("acl", {}), tokens))
        else:
            chunks.extend(item)
    return chunks


def _chunk_owner(node: Node, by_id: dict[str, Node], roots: dict[str, str]) -> str | None:
    """The nearest chunked ancestor in the same file, else the file's root. Namespaces are
    skipped: one namespace node is shared by every file that declares it."""
    parent = by_id.get(node.parent) if node.parent else None
    while parent is not None and parent.path == node.path:
        if parent.kind in CHUNKABLE_KINDS:
            return parent.id
        parent = by_id.get(parent.parent) if parent.parent else None
    root = roots.get(node.path)
    return root if root != node.id else None


def _elided_text(node: Node, lines: list[str], children: list[Node]) -> list[tuple[int, str]] | None:
    """(line number, text) of the node's span with children cut to one line; None if only
    blank lines and elisions remain."""
    out: list[tuple[int, str]] = []
    line_no = node.start_line
    has_code = False
    for child in sorted(children, key=lambda c: c.start_line):
        if child.start_line < line_no:
            continue  # nested inside an earlier child
        for number in range(line_no, child.start_line):
            out.append((number, lines[number - 1]))
            has_code = has_code or bool(lines[number - 1].strip())
        out.append((child.start_line, _elision(child, lines)))
        line_no = child.end_line + 1
    for number in range(line_no, min(node.end_line, len(lines)) + 1):
        out.append((number, lines[number - 1]))
        has_code = has_code or bool(lines[number - 1].strip())
    return out if has_code else None


def _elision(child: Node, lines: list[str]) -> str:
    first = lines[child.start_line - 1]
    indent = first[: len(first) - len(first.lstrip())]
    shown = child.signature.split("\n", 1)[0] if child.signature else first.strip()
    return f"{indent}{shown} ...  [{child.kind.lower()} {child.short_name}: own chunk]"


def _split(node: Node, body: list[tuple[int, str]], header: str, counter: TokenCounts,
           max_tokens: int, access: dict, tokens: int) -> list[Chunk]:
    """The node's chunk, or its parts when its body's `tokens` are over `max_tokens`."""
    base = {"language": node.language, "signature": node.signature, "parent_node": node.parent, **access}
    text = "\n".join(t for _, t in body)
    if tokens <= max_tokens:
        return [_chunk(node, node.id, body, text, header, {**base, "tokens": tokens})]
    parts = line_groups(body, counter.line_costs([t for _, t in body]), max_tokens)
    chunks = []
    for index, part in enumerate(parts, start=1):
        text = "\n".join(t for _, t in part)
        meta = {**base, "tokens": counter.count(text), "parent_chunk": node.id,
                "part": index, "parts": len(parts)}
        chunks.append(_chunk(node, f"{node.id}{PART_MARK}{index}", part, text,
                             f"{header}\npart: {index} of {len(parts)}", meta))
    return chunks


def line_groups(body: list[T], costs: list[int], max_tokens: int) -> list[list[T]]:
    """Consecutive lines packed into groups of at most max_tokens (a longer line stays whole)."""
    groups: list[list[T]] = [[]]
    used = 0
    for line, cost in zip(body, costs):
        if groups[-1] and used + cost > max_tokens:
            groups.append([])
            used = 0
        groups[-1].append(line)
        used += cost
    return groups


def _chunk(node: Node, cid: str, lines: list[tuple[int, str]], text: str, header: str,
           metadata: dict) -> Chunk:
    return Chunk(
        id=cid, path=node.path, start_line=lines[0][0], end_line=lines[-1][0], kind=node.kind,
        symbol=node.name, text=text, metadata={**metadata, "header": header},
    )
