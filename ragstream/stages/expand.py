"""The expand stage's graph actions: expand around the seeds, then fetch texts in a budget.

They read the state's seeds, scope and filters and write only the graph fields and
`node_texts` (plus the node-text accounting under `budget["node_texts"]`); the walk and the
budget are the graph layer's (`graph/expansion.py`, `graph/node_texts.py`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

from ragstream.excerpt import line_numbers
from ragstream.graph.guesses import graph_for
from ragstream.graph.expansion import expand_dependency_tree, limits_from_settings
from ragstream.graph.stand_ins import named_by_types, without_declarations_of
from ragstream.graph.node_texts import budget_from, declarations_of, fetch_node_texts, resolved_mode
from ragstream.index.graph_mark import STATE_NOTE, graph_note
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.types import RetrievalBackend, check_scope
from ragstream.index.model import CHUNKABLE_KINDS, PART_MARK, node_of
from ragstream.stages.action import SCOPE, Action
from ragstream.super_prompt import GRAPH_FIELDS, SuperPrompt
from ragstream.token_count import TokenCounter

ACTIONS = (
    # expand_dependency_tree around relate's objects and the search's seeds
    Action("expand", "expand", lambda sp, rt, step, settings: expand_graph(sp, rt.backend, step, settings),
           ("ok", "no_seeds", "limit_reached"),
           {"max_depth_from_settings": str, "max_nodes_from_settings": str, "edge_allowlist_from_settings": str},
           reads=SCOPE | {"retrieval_seed_nodes", "views_by_stage.relate"},
           writes=frozenset(GRAPH_FIELDS)),
    Action("fetch_node_texts", "expand",
           lambda sp, rt, step, settings: fill_node_texts(sp, rt.backend, rt.counter, step, settings),
           ("ok", "no_texts"), {"budget_tokens": int, "max_chars": int, "prioritization_mode": str},
           reads=SCOPE | {"graph_expanded_nodes", "graph_seed_nodes", "graph_debug", "retrieval_hits",
                          "extras.relations"},
           writes=frozenset({"node_texts", "budget.node_texts"})),
)


def expand_graph(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any],
                 settings: Mapping[str, Any]) -> str:
    """Writes graph_seed_nodes, graph_expanded_nodes (seeds first), graph_edges and graph_debug
    (with each node's depth and parent); returns the outcome (`ok`, `no_seeds`, `limit_reached`)."""
    check_scope(sp.repository, sp.branch)
    limits = limits_from_settings(step, settings, step.get("id", "expand"))
    filters = RetrievalFilters.parse(sp.retrieval_filters)
    seen = backend.graph(sp.repository, sp.branch, filters, sp.active_index)
    graph = graph_for(seen, settings)
    # What the relate stage found in the graph goes before the search's seeds; a constructor the
    # search found stands for its type (`named_by_types`), once: beside its type it repeats it, as
    # an interface's member does beside its implementation (`without_declarations_of`).
    seeds = without_declarations_of(graph, named_by_types(
        graph, [node_of(s) for s in [*sp.views_by_stage.get("relate", []), *sp.retrieval_seed_nodes]]))
    result = expand_dependency_tree(graph, seeds, filters, limits)
    sp.graph_seed_nodes = result.seeds
    sp.graph_expanded_nodes = result.nodes
    sp.graph_edges = result.edges
    note = graph_note(seen.graph, filters != RetrievalFilters())  # an interim graph: said with the walk on it
    sp.graph_debug = {**result.debug, "depth": result.depth, "parent": result.parent,
                      **({STATE_NOTE: note} if note else {})}
    return result.debug["reason"]


def fill_node_texts(sp: SuperPrompt, backend: RetrievalBackend, counter: TokenCounter, step: Mapping[str, Any],
                settings: Mapping[str, Any]) -> str:
    """Writes node_texts from graph_expanded_nodes (else graph_seed_nodes) inside the budget, in
    the prioritisation mode's order (`auto` resolved by whether relate answered from the graph)."""
    budget = budget_from(step, settings, step.get("id", "fetch_node_texts"))
    mode = step.get("prioritization_mode", settings.get("prioritization_mode", "balanced"))
    graph_answered = bool(sp.extras.get("relations", {}).get("answer"))
    candidates = sp.graph_expanded_nodes or sp.graph_seed_nodes
    filters = RetrievalFilters.parse(sp.retrieval_filters)
    scope = {"repository": sp.repository, "branch": sp.branch,
             "retrieval_filters": filters, "active_index": sp.active_index}
    graph = backend.graph(sp.repository, sp.branch, filters, sp.active_index)  # what the caller may see
    texts, accounting = fetch_node_texts(
        candidates, sp.graph_seed_nodes, sp.graph_debug.get("depth", {}), sp.graph_debug.get("parent", {}),
        backend, scope, budget, counter, resolved_mode(mode, graph_answered), _hit_parts(sp),
        declarations_of(graph, candidates))
    sp.node_texts = [_numbered_members(item, graph) for item in texts]
    sp.budget = {**sp.budget, "node_texts": accounting}
    return "ok" if texts else "no_texts"


def _numbered_members(item: dict[str, Any], graph: nx.MultiDiGraph) -> dict[str, Any]:
    """The item with every line numbered when its node elides members (a class, a type, a file):
    the graph has each member's span, which its text does not say. A declaration (a column's
    `Name TYPE`, from the graph) is no line of the file: it stays unnumbered."""
    data = graph.nodes[item["id"]] if item["id"] in graph and "parts" not in item and not item.get("declaration") \
        else None
    if data is None or None not in item.get("lines", [None]):
        return item
    members, reached = [], 0
    for child in sorted((graph.nodes[c] for c in graph.successors(item["id"])
                         if graph.nodes[c].get("parent") == item["id"] and graph.nodes[c].get("path") == data["path"]
                         and graph.nodes[c].get("kind") in CHUNKABLE_KINDS), key=lambda c: c["start_line"]):
        if child["start_line"] > reached:  # one nested inside an earlier member is elided with it
            members.append((child["start_line"], child["end_line"]))
            reached = child["end_line"]
    return {**item, "lines": line_numbers(item["text"], data["start_line"], data["end_line"], members)}


def _hit_parts(sp: SuperPrompt) -> dict[str, list[str]]:
    """Node id -> the parts of it (`<node>#p<n>`) the search hit, best first."""
    parts: dict[str, list[str]] = {}
    for hit in sp.retrieval_hits:
        if PART_MARK in hit["id"]:
            parts.setdefault(node_of(hit["id"]), []).append(hit["id"])
    return parts
