"""EF Core SaveChanges interceptors: the code a save runs around itself.

`await _context.SaveChangesAsync(ct)` names no interceptor, yet EF runs every registered
`SaveChangesInterceptor` (or `ISaveChangesInterceptor`) around it: `SavingChangesAsync` before the
SQL (auditing fields stamped, domain events published), `SavedChangesAsync` after it. A class is an
interceptor by its base, EF's type (directly or through a base of the repository's own); its hooks
are the methods it declares under EF's names, sync for `SaveChanges`, async for `SaveChangesAsync`.

A save is a call of `SaveChanges` / `SaveChangesAsync` that the resolver does not settle on a
method with a body in the repository (EF's own, or an interface such as `IApplicationDbContext`
that the context implements by inheriting it; a unit of work with a body saves in its body, which
is then the save), and a write through a package's generic repository (a WRITES edge of
`data_access` marked a guess: `RepositoryBase<T>.UpdateAsync` saves the context it wraps). Each
save is linked to the hooks of its kind: CALLS, `resolution="dispatch"`, `via="interceptor"`,
`member` (the save called). Which context an interceptor is registered on is configuration: the
edge is a guess unless the repository registers interceptors (`AddInterceptors(...)`), and only
a class deriving from EF's base is linked (one that merely names its methods so is not).
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, settled_in_repository
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable

INTERCEPTOR_BASES = frozenset({"SaveChangesInterceptor", "ISaveChangesInterceptor"})
SAVE_CALLS = frozenset({"SaveChanges", "SaveChangesAsync"})
# EF's hooks around SaveChanges, by whether the save is async
HOOKS = {False: frozenset({"SavingChanges", "SavedChanges", "SaveChangesFailed", "SaveChangesCanceled"}),
         True: frozenset({"SavingChangesAsync", "SavedChangesAsync", "SaveChangesFailedAsync",
                          "SaveChangesCanceledAsync"})}
REGISTRATION = "AddInterceptors"


def interceptor_hooks(graph: nx.MultiDiGraph) -> dict[bool, list[str]]:
    """The hook METHOD ids of every interceptor type, by whether they run for an async save."""
    found: dict[bool, list[str]] = {False: [], True: []}
    for node, data in sorted(graph.nodes(data=True)):
        if data.get("kind") != "TYPE" or data.get("attrs", {}).get("type_kind") == "interface" \
                or not any(short_name(graph, base) in INTERCEPTOR_BASES for base in ancestors(graph, node)):
            continue
        for _, method, key in sorted(graph.out_edges(node, keys=True)):
            name = short_name(graph, method)
            for is_async, hooks in HOOKS.items():
                if key == "DEFINES" and name in hooks:
                    found[is_async].append(method)
    return found


def link_interceptors(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each save to the interceptor hooks it runs; how many were added."""
    hooks = interceptor_hooks(graph)
    if not any(hooks.values()):
        return 0
    refs = list(refs)
    registered = any((ref.attrs.get("call") or {}).get("member") == REGISTRATION for ref in refs)
    saves = [(ref.source, ref.line, ref.attrs["call"]["member"]) for ref in refs
             if (ref.attrs.get("call") or {}).get("member") in SAVE_CALLS and ref.source in graph
             and not settled_in_repository(graph, symbols, ref.attrs["call"])]
    saves += [(source, data.get("line", 0), data["member"])
              for source, _, key, data in list(graph.edges(keys=True, data=True)) if _package_write(key, data)]
    added = 0
    for source, line, member in saves:
        for hook in hooks[member.endswith("Async")]:
            attrs = {"line": line, "resolution": "dispatch", "via": "interceptor", "member": member,
                     **({} if registered else {"guess": True})}
            added += add_edge(graph, source, hook, "CALLS", attrs)
    return added


def _package_write(key: str, data: dict) -> bool:
    """A write through a generic repository the repository does not declare (its type argument
    and verb alone: `data_access` marks it a guess), which saves the context it wraps."""
    return key == "WRITES" and data.get("via") == "type_argument" and bool(data.get("guess")) \
        and not data.get("table_by_name") and bool(data.get("member"))


def short_name(graph: nx.MultiDiGraph, node: str) -> str:
    """A node's name without its namespace and type arguments (`SaveChangesInterceptor`)."""
    return graph.nodes[node].get("name", "").split("<", 1)[0].rsplit(".", 1)[-1]
