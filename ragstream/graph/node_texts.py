"""`fetch_node_texts`: exact bodies of the most relevant nodes, inside a token budget.

Candidates are queued by the prioritisation mode, then taken whole or not at all: a snippet
that does not fit is skipped and the scan goes on to the end of the queue, so a smaller one
further down can still use the room. Texts come through the retrieval backend's `fetch_texts`,
under the same scope and filters as the search.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ragstream.errors import PipelineError
from ragstream.excerpt import SKIPPED, joined, numbered
from ragstream.retrieval.types import RetrievalBackend
from ragstream.index.model import PART_MARK
from ragstream.token_count import TokenCounter

MODES = ("seed_first", "graph_first", "balanced", "auto")
DEFAULT_SHARE = 0.70  # of max_context_tokens, when no budget_tokens is given


@dataclass(frozen=True)
class Budget:
    limit: int
    unit: str  # "tokens" | "chars"


def budget_from(params: Mapping[str, Any], settings: Mapping[str, Any], step: str) -> Budget:
    """`budget_tokens`, or `max_chars`, or floor(max_context_tokens * 0.70); gaps are errors."""
    where = f"step {step}"
    if "max_chars" in params and "budget_tokens" in params:
        raise PipelineError("give budget_tokens or max_chars, not both", where=f"{where}: max_chars")
    if "max_chars" in params:
        return Budget(_positive(params["max_chars"], f"{where}: max_chars"), "chars")
    if "budget_tokens" in params:
        return Budget(_positive(params["budget_tokens"], f"{where}: budget_tokens"), "tokens")
    total = settings.get("max_context_tokens")
    if isinstance(total, bool) or not isinstance(total, int) or total <= 0:
        raise PipelineError(f"max_context_tokens must be a positive int, got {total!r}",
                            where=f"{where}: settings.max_context_tokens")
    return Budget(_positive(math.floor(total * DEFAULT_SHARE), f"{where}: computed budget"), "tokens")


def resolved_mode(mode: str, graph_answered: bool) -> str:
    """`auto`: `balanced` when the graph answered the question (a list, impact or flow answer:
    the nodes around it are the answer's structure), else `seed_first` (the search's hits are
    the answer, and the graph's neighbours only fill the room they leave)."""
    if mode not in MODES:
        raise PipelineError(f"unknown prioritization_mode {mode!r}; choose one of {MODES}",
                            where="prioritization_mode")
    if mode != "auto":
        return mode
    return "balanced" if graph_answered else "seed_first"


def prioritise(seeds: list[str], graph_nodes: list[str], depth: Mapping[str, int], mode: str) -> list[str]:
    """The order in which candidates try to enter the budget (`mode`: one of MODES but `auto`)."""
    if mode not in MODES[:3]:
        raise PipelineError(f"unknown prioritization_mode {mode!r}; choose one of {MODES[:3]}",
                            where="prioritization_mode")
    # Stable: within a depth the expansion's order (most specific to the seeds first) stands.
    graph_nodes = sorted(graph_nodes, key=lambda n: depth.get(n, 0))
    if mode == "seed_first":
        return seeds + graph_nodes
    if mode == "graph_first":
        return graph_nodes + seeds
    queue = [n for pair in zip(seeds, graph_nodes) for n in pair]
    shorter = min(len(seeds), len(graph_nodes))
    return queue + seeds[shorter:] + graph_nodes[shorter:]


def fetch_node_texts(candidates: list[str], seeds: list[str], depth: Mapping[str, int],
                     parent: Mapping[str, str | None], backend: RetrievalBackend, scope: Mapping[str, Any],
                     budget: Budget, counter: TokenCounter, mode: str = "balanced",
                     hit_parts: Mapping[str, list[str]] | None = None,
                     declarations: Mapping[str, str] | None = None) -> tuple[list[dict], dict]:
    """(node_texts, accounting). Items: id, text, lines (each line's number in the file), is_seed,
    depth, parent_id, tokens, and for a node taken in part, `parts` (chunk ids) and `where` (their
    spans). The accounting lists what
    was cut by the budget, what was taken in part and what had no text, for the budget panel.

    `hit_parts` (node id -> the parts of it the search hit, best first): a long node that does
    not fit whole (an install script, a big class) enters with those parts when they fit, as the
    search found them relevant, rather than not at all. `declarations` (node id -> its declaration
    line) stand in for nodes with no chunk of their own (a property, a column): the line that
    declares `Table<BlackList> BlackList` is the evidence that it maps the table."""
    seed_set = set(seeds)
    hit_parts = hit_parts or {}
    queue = prioritise([c for c in candidates if c in seed_set], [c for c in candidates if c not in seed_set],
                       depth, mode)
    parts_asked = [p for node in queue for p in hit_parts.get(node, ())]
    texts = backend.fetch_texts(queue + parts_asked, scope["repository"], scope["branch"],
                                scope["retrieval_filters"], scope.get("active_index"))
    declared = {n: line for n, line in (declarations or {}).items() if n not in texts}
    texts = {**texts, **declared}
    used, kept, cut, partial = 0, [], [], []

    def cost_of(text: str) -> int:
        return counter.count(text) if budget.unit == "tokens" else len(text)

    for node in queue:
        if node not in texts:
            continue
        text = texts[node]
        extra: dict[str, Any] = {"declaration": True} if node in declared else {}
        cost = cost_of(text)
        if used + cost > budget.limit:
            parts = _parts_that_fit([p for p in hit_parts.get(node, ()) if p in texts], texts,
                                    budget.limit - used, cost_of)
            if not parts:
                cut.append({"id": node, "cost": cost})
                continue
            partial.append({"id": node, "parts": parts, "whole_cost": cost})
            where = backend.locations(parts, scope["repository"], scope["branch"], scope["retrieval_filters"],
                                      scope.get("active_index"))
            text, lines = joined([(texts[p], numbered(texts[p], where.get(p))) for p in parts])
            cost = cost_of(text)
            extra = {"parts": parts, "where": ", ".join(where[p] for p in parts if p in where), "lines": lines}
        used += cost
        tokens = cost if budget.unit == "tokens" else counter.count(text)
        kept.append({"id": node, "text": text, "is_seed": node in seed_set, "depth": depth.get(node, 0),
                     "parent_id": None if node in seed_set else parent.get(node), "tokens": tokens, **extra})
    whole = backend.locations([i["id"] for i in kept if "lines" not in i], scope["repository"], scope["branch"],
                              scope["retrieval_filters"], scope.get("active_index"))
    for item in kept:  # each line's number in the file: the excerpt every front end quotes (`excerpt.py`)
        item.setdefault("lines", numbered(item["text"], whole.get(item["id"])))
    accounting = {"budget": budget.limit, "unit": budget.unit, "used": used, "cut": cut, "partial": partial,
                  "without_text": [n for n in queue if n not in texts]}
    return kept, accounting


def _parts_that_fit(parts: list[str], texts: Mapping[str, str], room: int,
                    cost_of: Callable[[str], int]) -> list[str]:
    """The parts, best first, each taken whole while the room lasts (in file order: `#p1` before
    `#p2`), the separator line counted."""
    chosen, used = [], 0
    for part in parts:
        cost = cost_of(texts[part]) + cost_of(f"\n{SKIPPED}\n")
        if used + cost <= room:
            chosen.append(part)
            used += cost
    return sorted(chosen, key=lambda p: int(p.rsplit(PART_MARK, 1)[1]))


def _positive(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise PipelineError(f"must be a positive int, got {value!r}", where=where)
    return value


# Kinds with no chunk of their own, whose declaration line is their evidence.
DECLARED_KINDS = ("PROPERTY", "COLUMN")


def declarations_of(graph: nx.MultiDiGraph, nodes: list[str]) -> dict[str, str]:
    """Node id -> the line that declares it, for the nodes of DECLARED_KINDS among `nodes`."""
    return {n: graph.nodes[n]["signature"] for n in nodes
            if n in graph and graph.nodes[n].get("kind") in DECLARED_KINDS and graph.nodes[n].get("signature")}
