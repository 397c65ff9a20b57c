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

An argument of that kind passed to a package's base method: `Commit(_customers.UnitOfWork)` in a
handler deriving from a package's `CommandHandler`, whose `Commit(IUnitOfWork uow)` the index
cannot read. When the argument's type is an interface (of a package, or of the repository and
declaring, itself or through a base, a method named as the one called) that exactly one
repository class implements, and that class (or its nearest repository base) declares a method
named as the one called, the caller is linked to it: CALLS,
`resolution="inferred"`, `via="argument_implementer"`, `guess` (that the package's `Commit`
calls `uow.Commit()` is read from the name alone), `package_method` (`CommandHandler.Commit`),
`implements`, `argument` (its position). Not linked: an argument of a class type (`Validate(command)`
of a validator does not call `command.Validate()`), an interface implemented twice, a
repository interface without that method (`Save(order)` on an `IOrder` declaring no `Save`), a
call the repository resolves itself.
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from ragstream.index.csharp.call_resolution import (
    accepts,
    ancestors,
    argument_binding,
    merge_binding,
    nearest_ancestors,
    receiver_types,
    sole_implementer,
    untyped,
)
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable, is_interface


def link_package_implementers(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference],
                              implementers: dict[str, set[str]]) -> int:
    """CALLS from each call on a package type to its one repository implementer's method
    (`implementers`: `package_implementers`); how many were added."""
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
        implementer, name = sorted(matched.items())[0]
        if implementer == graph.nodes[ref.source].get("parent"):
            continue  # a decorator calls the instance it wraps (`_wrapped.ExecuteStart()`), not itself
        binding = argument_binding(graph, symbols, call)
        for method in _declared(graph, symbols, implementer, call, fitting=True):
            if graph.has_edge(ref.source, method, key="CALLS"):  # a second call of it: what both bind
                merge_binding(graph.edges[ref.source, method, "CALLS"], binding)
            added += add_edge(graph, ref.source, method, "CALLS", {
                "line": ref.line, "resolution": "inferred", "via": "implementer",
                "implements": name.rsplit(".", 1)[-1], **binding})
    return added


def link_argument_implementers(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference],
                               implementers: dict[str, set[str]]) -> int:
    """CALLS from each call of a package base's method to the same-named method of the one
    repository class implementing an interface passed to it (`implementers`:
    `package_implementers`); how many were added."""
    bases = _outside_bases(graph)
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        if not call or not any(call.get("argument_types") or ()) or ref.source not in graph:
            continue
        base = bases.get((ref.source, ref.line, call["member"]))
        if base is None:
            continue
        for position, spec in enumerate(call["argument_types"]):
            found = _argument_implementer(graph, symbols, receiver_types(graph, symbols, spec), implementers,
                                          call["member"]) if spec else None
            if found is None:
                continue
            implementer, name = found
            for method in _declared(graph, symbols, implementer, call, fitting=False):
                added += add_edge(graph, ref.source, method, "CALLS", {
                    "line": ref.line, "resolution": "inferred", "via": "argument_implementer", "guess": True,
                    "package_method": base, "implements": name.rsplit(".", 1)[-1], "argument": position})
    return added


def _outside_bases(graph: nx.MultiDiGraph) -> dict[tuple[str, int, str], str]:
    """(caller, line, member called) -> the package base method (`CommandHandler.Commit`) that call
    was linked to; built once, so a method making thousands of calls is not rescanned per call."""
    found: dict[tuple[str, int, str], str] = {}
    for source, target, key, data in graph.edges(keys=True, data=True):
        if key == "CALLS" and data.get("via") == "external_base":
            name = graph.nodes[target].get("name", "")
            found.setdefault((source, data.get("line", 0), name.rsplit(".", 1)[-1]), name)
    return found


def _argument_implementer(graph: nx.MultiDiGraph, symbols: SymbolTable, guesses: list[str],
                          implementers: dict[str, set[str]], member: str) -> tuple[str, str] | None:
    """(the one repository class, the interface as named) for an argument typed by an interface
    of the repository that declares `member` (itself or a base: an `IOrder` without `Save` says
    nothing of `Save(order)`) or of a package, that exactly one repository class implements."""
    declared = symbols.first("csharp", guesses, ("TYPE",))
    if declared is not None:
        implementer = sole_implementer(graph, symbols, declared.id)
        if implementer is None or not any(symbols.members.get((owner, member))
                                          for owner in (declared.id, *nearest_ancestors(graph, declared.id))):
            return None
        return implementer, declared.name
    classes = sorted({(t, guess) for guess in guesses for t in implementers.get(guess, ())
                      if not is_interface(symbols.nodes.get(t))})
    return classes[0] if len({t for t, _ in classes}) == 1 else None


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


def _declared(graph: nx.MultiDiGraph, symbols: SymbolTable, type_id: str, call: dict, fitting: bool) -> list[str]:
    """The overloads of the member called that the type, or its nearest repository base that
    declares it, has; only those taking the call's arguments when `fitting` (a package's
    `Commit(uow)` calls `uow.Commit()` with arguments of its own)."""
    for owner in (type_id, *nearest_ancestors(graph, type_id)):
        methods = [m for m in symbols.members.get((owner, call["member"]), ())
                   if not fitting or accepts(m, call["arguments"], call.get("kinds", ()))]
        if methods:
            return [m.id for m in methods]
    return []
