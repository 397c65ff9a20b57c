"""Calls on a type from a package that exactly one type of the repository implements or derives from.

`_mediator.SendCommand(command)` on an `IMediatorHandler` (NetDevPack) names a type the index does
not declare, so the resolver stops there; yet the application's own `InMemoryBus :
IMediatorHandler` is what runs. When exactly one repository type names that package type among
its bases (the usings of both files agree on a qualified name for it) and declares the member
called, or a base of it in the repository does, the call is linked to that method: CALLS, attrs
`resolution="inferred"`, `via="implementer"`, `implements` (the package type as written). It is
inferred, not certain: the package may ship an implementation of its own that the application
registers instead. Not linked: a call through `base.` (the package's own method) and one made
in the implementer itself (a decorator calls the instance it wraps). With two or more
implementers nothing is linked: a package type the
repository implements several times is mostly a framework contract (`IDisposable`,
`IComparer<T>`, `IHostedService`) that the framework calls, and fanning each call out to every
implementer would say more than the code does.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import accepts, ancestors, nearest_ancestors, receiver_types, untyped
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable


def link_package_implementers(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each call on a package type to its one repository implementer's method; how
    many were added."""
    refs = list(refs)
    implementers = package_implementers(symbols, refs)
    if not implementers:
        return 0
    owners = {o for types in implementers.values() for t in types for o in (t, *ancestors(graph, t))}
    members = {member for owner, member in symbols.members if owner in owners}
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        if not call or call["member"] not in members or ref.source not in graph or untyped(call["receiver"]) \
                or ref.attrs.get("via_base"):
            continue  # `base.Initialize(...)` runs the package's own method
        guesses = receiver_types(graph, symbols, call["receiver"])
        if not guesses or symbols.first("csharp", guesses, ("TYPE",)) is not None:
            continue  # unknown, or a type of the repository: the resolver's
        matched = {t: guess for guess in guesses for t in implementers.get(guess, ())}
        if len(matched) != 1:
            continue
        implementer, name = next(iter(matched.items()))
        if implementer == graph.nodes[ref.source].get("parent"):
            continue  # a decorator calls the instance it wraps (`_wrapped.ExecuteStart()`), not itself
        for method in _declared(graph, symbols, implementer, call):
            added += add_edge(graph, ref.source, method, "CALLS", {
                "line": ref.line, "resolution": "inferred", "via": "implementer",
                "implements": name.rsplit(".", 1)[-1]})
    return added


def package_implementers(symbols: SymbolTable, refs: list[Reference]) -> dict[str, set[str]]:
    """Qualified guess of a package type (one the index does not declare) -> the repository
    types whose base list names it."""
    found: dict[str, set[str]] = defaultdict(set)
    for ref in refs:
        if ref.edge_type != "INHERITS" or ref.source not in symbols.nodes \
                or symbols.first("csharp", ref.candidates, ("TYPE",)) is not None:
            continue
        for guess in ref.candidates:
            if "." in guess:  # the bare name alone would match any package's type of that name
                found[guess].add(ref.source)
    return found


def _declared(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str, call: dict) -> list[str]:
    """The overloads of the member called that the type, or its nearest repository base that
    declares it, has and that take the call's arguments."""
    for owner in (type_id, *nearest_ancestors(graph, type_id)):
        methods = [m for m in symbols.members.get((owner, call["member"]), ())
                   if accepts(m, call["arguments"], call.get("kinds", ()))]
        if methods:
            return [m.id for m in methods]
    return []
