"""Calls through a package's static facade to the repository's overrides of the provider base it fronts.

The .NET provider model puts a static facade in front of an abstract base that the application
subclasses and names in configuration: `Membership.ValidateUser(name, password)` runs the
configured `MembershipProvider`'s `ValidateUser`, `Roles.GetRolesForUser()` the `RoleProvider`'s.
Neither type is in the repository, and the repository's `DbMembershipProvider : MembershipProvider`
is what runs. A call on a package type `F` (one the index does not declare) is linked to the
`override M` methods of the repository types deriving from a package type `B` when `B` and `F` are
guessed in the same namespace (the usings of both files agree on one), `B`'s name begins with
`F`'s (a trailing plural `s` dropped: `Roles` -> `RoleProvider`) and is longer, and the member's
name is `M`. Overloads taking the call's arguments are preferred; the facade may fill the rest
itself (`Roles.GetRolesForUser()` asks for the current user's), so without one every override of
`M` is taken. Always a guess (the link rests on the names and on what configuration chooses):
CALLS, `resolution="inferred"`, `via="facade"`, `guess`, `facade` and `base` (the package types as
written), `candidates` (every override linked from that call, so several say which could run).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import accepts
from ragstream.index.csharp.package_types import package_implementers
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Node, Reference
from ragstream.index.symbols import SymbolTable

MIN_STEM = 4  # a facade's name shorter than this says too little to pair it with a base by its start


def link_facades(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each call on a package facade to the overrides of the provider base it fronts;
    how many were added."""
    refs = list(refs)
    subclasses = package_implementers(symbols, refs)
    by_namespace: dict[str, list[str]] = defaultdict(list)  # namespace -> package bases guessed in it
    for base in subclasses:
        by_namespace[base.rsplit(".", 1)[0]].append(base)
    added = 0
    for ref in refs:
        call: dict = ref.attrs.get("call") or {}
        guesses = call.get("receiver", {}).get("types")
        if not guesses or ref.source not in graph or ref.attrs.get("via_base") \
                or symbols.first("csharp", guesses, ("TYPE",)) is not None:
            continue  # not a call on a named type, or on one of the repository's: the resolver's
        overrides = _overrides(symbols, call, _fronted(guesses, by_namespace, subclasses))
        if not overrides:
            continue
        candidates = [m.id for m, _, _ in overrides]
        for method, facade, base in overrides:
            added += add_edge(graph, ref.source, method.id, "CALLS", {
                "line": ref.line, "resolution": "inferred", "via": "facade", "guess": True,
                "facade": facade, "base": base, "candidates": candidates})
    return added


def _fronted(guesses: Iterable[str], by_namespace: dict[str, list[str]],
             subclasses: dict[str, set[str]]) -> dict[str, tuple[str, str]]:
    """Repository type id -> (facade, base) as written, for each package base the facade fronts."""
    found: dict[str, tuple[str, str]] = {}
    for guess in guesses:
        if "." not in guess:
            continue
        namespace, facade = guess.rsplit(".", 1)
        stem = facade[:-1] if facade.endswith("s") else facade
        if len(stem) < MIN_STEM:
            continue
        for base in by_namespace.get(namespace, ()):
            written = base.rsplit(".", 1)[1]
            if written.startswith(stem) and len(written) > len(facade) and written != facade:
                for subclass in sorted(subclasses[base]):
                    found.setdefault(subclass, (facade, written))
    return found


def _overrides(symbols: SymbolTable, call: dict, fronted: dict[str, tuple[str, str]]) -> list[tuple[Node, str, str]]:
    """The `override` methods named like the call's member that the fronted repository types
    declare: those taking the call's arguments, else all of them."""
    found = [(method, facade, base) for subclass, (facade, base) in fronted.items()
             for method in symbols.members.get((subclass, call["member"]), ())
             if "override" in method.attrs.get("modifiers", ())]
    fitting = [item for item in found if accepts(item[0], call["arguments"], call.get("kinds", ()))]
    return fitting or found
