"""Dispatch narrowed by the type arguments a generic host is created with.

`var pipeline = new Pipeline<IPipelineProcess<Topic>, Topic>(ctx); pipeline.Process(model)`, where
`Pipeline<TOne, TTwo>.Process` calls `pipe.Process(..)` on its `IPipe<TOne>`s: `link_dispatch`
links that call to every implementer of `IPipe<>` (each a guess), but C# substitutes the host's
type arguments for its type parameters (C# spec, "Constructed types"), so with `TOne` bound to
`IPipelineProcess<Topic>` only the implementers of `IPipe<IPipelineProcess<Topic>>` can run.
Each call on a receiver of a constructed generic type (`data.generic`, not an inherited one) that
resolves to a method of that generic type gets, for each dispatch of that method through a generic
interface, a CALLS edge to the implementations whose base names only types among the caller's type
arguments (`generic_bases[].names`: every type the base's arguments name, nested ones too), when
that keeps some but not all of them. Edges: attrs `resolution="dispatch"`, `via` (the interface
method), `host` (the generic type's method the dispatch is made in), `bound` (the caller's type
arguments), and, with several kept, `guess` and their `candidates` (`link_dispatch`'s convention).
Run after `link_dispatch`.
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.call_resolution import resolve_call
from ragstream.index.graph_edits import add_edge, named_candidates
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable


def link_bound_dispatch(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference]) -> int:
    """Add the narrowed dispatch edges; returns how many were added."""
    added = 0
    for ref in refs:
        call = ref.attrs.get("call") or {}
        data = call.get("data") or {}
        if not data.get("generic") or data.get("inherited") or ref.source not in graph:
            continue
        bound = _type_ids(symbols, data.get("entities") or [])
        if not bound:
            continue
        for host in resolve_call(graph, symbols, call).methods:
            owner = graph.nodes[host].get("parent") if host in graph else None
            if not owner or not (graph.nodes[owner].get("attrs") or {}).get("type_parameters"):
                continue
            for via, targets in _dispatches(graph, host).items():
                kept = [t for t in targets if _bound_implementation(graph, symbols, t, via, bound)]
                if not kept or len(kept) == len(targets):
                    continue
                attrs = {"line": ref.line, "resolution": "dispatch", "via": via, "host": host, "bound": sorted(bound),
                         **({"guess": True, **named_candidates(kept)} if len(kept) > 1 else {})}
                added += sum(add_edge(graph, ref.source, target, "CALLS", attrs) for target in kept if target != ref.source)
    return added


def _type_ids(symbols: SymbolTable, guesses: list[list[str]]) -> set[str]:
    """The repository's TYPE node of each list of qualified guesses that names one."""
    found = (symbols.first("csharp", tuple(g), ("TYPE",)) for g in guesses if g)
    return {node.id for node in found if node is not None}


def _dispatches(graph: nx.MultiDiGraph, method: str) -> dict[str, list[str]]:
    """The guessed dispatch targets of `method`'s calls, by the interface method called."""
    found: dict[str, list[str]] = defaultdict(list)
    for _, target, data in graph.out_edges(method, data=True):
        if data.get("type") == "CALLS" and data.get("resolution") == "dispatch" and data.get("guess") \
                and data.get("via") in graph and "host" not in data:
            found[data["via"]].append(target)
    return found


def _bound_implementation(graph: nx.MultiDiGraph, symbols: SymbolTable, target: str, via: str, bound: set[str]) -> bool:
    """Whether `target`'s type implements the interface `via` belongs to with type arguments that
    name only types of `bound` (and at least one)."""
    interface = graph.nodes[via].get("parent") or ""
    short = graph.nodes[interface].get("name", "").rsplit(".", 1)[-1] if interface in graph else ""
    owner = graph.nodes[target].get("parent")
    bases = (graph.nodes[owner].get("attrs") or {}).get("generic_bases", ()) if owner in graph else ()
    for base in bases:
        if base["name"].rsplit(".", 1)[-1] != short:
            continue
        named = _type_ids(symbols, base.get("names", []))
        if named and named <= bound:
            return True
    return False
