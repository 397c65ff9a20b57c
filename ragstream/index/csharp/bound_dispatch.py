"""Dispatch narrowed by the type arguments a generic host is created with.

`var pipeline = new Pipeline<IProcess<Topic>, Topic>(ctx); pipeline.Process(model)`, where
`Pipeline<TOne, TTwo>.Process` calls `pipe.Run(..)` on its `IPipe<TOne>`s: `link_dispatch` links
that call to every implementer of `IPipe<>` (each a guess), but C# substitutes the host's type
arguments for its type parameters (C# spec, "Constructed types"), so only the implementers of
`IPipe<IProcess<Topic>>` can run. The substitution is made by position and by name, not by type
inference: a host call whose receiver is declared with one of the host's type parameters as a type
argument (`IPipe<TOne>` at position 0, `TOne` the host's parameter 0; a `foreach` over a
`List<IPipe<TOne>>` counts) is narrowed to the implementations whose base (`IPipe<..>`, same arity)
has at that position the caller's type argument, written name by written name at every depth
(`Generic.shapes`, each resolved to a repository type where it names one), or one of the
implementation's own type parameters (`LogPipe<T> : IPipe<T>` runs for any). A receiver with a
fixed type argument (`IHandler<Order>`) depends on no type parameter and is left as it is.
Each call on a receiver of a constructed generic type (`data.generic`, not an inherited one) that
resolves to a method of that generic type gets a CALLS edge to each implementation kept, when that
keeps some but not all of them. Edges: attrs `resolution="dispatch"`, `via` (the interface
method), `host` (the generic type's method the dispatch is made in), `bound` (the caller's type
arguments), and, with several kept, `guess` and their `candidates` (`link_dispatch`'s convention).
They are shortcuts standing for the path through the host, which the flow walk takes instead.
Run after `link_dispatch`.
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.call_resolution import resolve_call
from ragstream.index.graph_edits import add_edge, named_candidates
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable

# (position in the receiver's type arguments, position of the host's type parameter written there)
_Positions = tuple[tuple[int, int], ...]


def link_bound_dispatch(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference]) -> int:
    """Add the narrowed dispatch edges; returns how many were added."""
    calls_by_method: dict[str, list[dict]] = defaultdict(list)
    for ref in refs:
        if (ref.attrs.get("call") or {}).get("receiver") and ref.source in graph:
            calls_by_method[ref.source].append(ref.attrs["call"])
    added = 0
    for ref in refs:
        call = ref.attrs.get("call") or {}
        data = call.get("data") or {}
        if not data.get("generic") or data.get("inherited") or not data.get("shapes") or ref.source not in graph:
            continue
        bound = _type_ids(symbols, data.get("entities") or [])
        for host in resolve_call(graph, symbols, call).methods:
            owner = graph.nodes[host].get("parent") if host in graph else None
            parameters = (graph.nodes[owner].get("attrs") or {}).get("type_parameters") if owner else None
            if not parameters:
                continue
            positions = _host_positions(graph, symbols, calls_by_method.get(host, []), parameters)
            # a caller's own type parameter (`new Pipeline<T>()` in `Svc<T>`) may stand for any type
            unknown = type_parameters_at(graph, ref.source)
            if any(p >= len(data["shapes"]) or any(name and name[-1] in unknown for name in data["shapes"][p])
                   for places in positions.values() for _, p in places):
                continue
            for via, targets in _dispatches(graph, host).items():
                if via not in positions:
                    continue
                kept = [t for t in targets
                        if _bound_implementation(graph, symbols, t, via, positions[via], data["shapes"])]
                if not kept or len(kept) == len(targets):
                    continue
                attrs = {"line": ref.line, "resolution": "dispatch", "via": via, "host": host, "bound": sorted(bound),
                         **({"guess": True, **named_candidates(kept)} if len(kept) > 1 else {})}
                added += sum(add_edge(graph, ref.source, target, "CALLS", attrs) for target in kept if target != ref.source)
    return added


def _host_positions(graph: nx.MultiDiGraph, symbols: SymbolTable, calls: list[dict],
                    parameters: list[str]) -> dict[str, _Positions]:
    """The host's calls made on a receiver declared with one of the host's type parameters as a type
    argument, by the method called: where in the receiver's type arguments, and which parameter.
    A method called both so and on a fixed type argument is not narrowed (which call an edge
    stands for, the graph does not tell)."""
    found: dict[str, set[_Positions]] = defaultdict(set)
    for call in calls:
        # a `foreach` variable's element type is the call's carrier (`data`), not its receiver spec
        arguments = call["receiver"].get("arguments") or (call.get("data") or {}).get("entities") or []
        # the last guess is the name as written (`Names.type_candidates`)
        positions = tuple((i, parameters.index(g[-1])) for i, g in enumerate(arguments) if g and g[-1] in parameters)
        for method in resolve_call(graph, symbols, call).methods:
            found[method].add(positions)
    return {method: next(iter(p)) for method, p in found.items() if len(p) == 1 and all(p)}


def type_parameters_at(graph: nx.MultiDiGraph, method: str) -> set[str]:
    """The type parameters in scope in `method`: its own and its type's."""
    owner = graph.nodes[method].get("parent")
    return {*((graph.nodes[method].get("attrs") or {}).get("type_parameters") or ()),
            *(((graph.nodes[owner].get("attrs") or {}).get("type_parameters") or ()) if owner in graph else ())}


def _type_ids(symbols: SymbolTable, guesses: list[list[str]]) -> set[str]:
    """The repository's TYPE node of each list of qualified guesses that names one."""
    return {key for key in map(lambda g: _type_key(symbols, g), guesses) if key.startswith("cs:")}


def _type_key(symbols: SymbolTable, guesses: list[str]) -> str:
    """The repository type a name's guesses name, else the name as written (`int`, `string`)."""
    node = symbols.first("csharp", tuple(guesses), ("TYPE",)) if guesses else None
    return node.id if node is not None else (guesses[-1] if guesses else "")


def _dispatches(graph: nx.MultiDiGraph, method: str) -> dict[str, list[str]]:
    """The guessed dispatch targets of `method`'s calls, by the interface method called: the edges'
    targets and the candidates they name (an implementation another edge to it already stands
    for has no dispatch edge of its own)."""
    found: dict[str, list[str]] = defaultdict(list)
    for _, target, data in graph.out_edges(method, data=True):
        if data.get("type") == "CALLS" and data.get("resolution") == "dispatch" and data.get("guess") \
                and data.get("via") in graph and "host" not in data:
            found[data["via"]].extend(t for t in (target, *data.get("candidates", ())) if t in graph)
    return {via: list(dict.fromkeys(targets)) for via, targets in found.items()}


def _bound_implementation(graph: nx.MultiDiGraph, symbols: SymbolTable, target: str, via: str,
                          positions: _Positions, caller_shapes: list[list[list[str]]]) -> bool:
    """Whether `target`'s type implements the interface `via` belongs to with, at each of
    `positions`, the caller's type argument for that host parameter (`caller_shapes`), or a type
    parameter of its own."""
    interface = graph.nodes[via].get("parent") or ""
    short = graph.nodes[interface].get("name", "").rsplit(".", 1)[-1] if interface in graph else ""
    arity = len((graph.nodes[interface].get("attrs") or {}).get("type_parameters") or []) if interface in graph else 0
    owner = graph.nodes[target].get("parent")
    attrs = (graph.nodes[owner].get("attrs") or {}) if owner in graph else {}
    own = set(attrs.get("type_parameters") or ())
    for base in attrs.get("generic_bases", ()):
        shapes = base.get("shapes") or []
        if base["name"].rsplit(".", 1)[-1] != short or arity and len(shapes) != arity:
            continue
        if all(q < len(shapes) and p < len(caller_shapes)
               and (any(name[-1] in own for name in shapes[q])
                    or [_type_key(symbols, n) for n in shapes[q]] == [_type_key(symbols, n) for n in caller_shapes[p]])
               for q, p in positions):
            return True
    return False
