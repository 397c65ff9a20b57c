"""Calls through a package's static facade to the repository's overrides of the provider base it fronts.

The .NET provider model puts a static facade in front of an abstract base that the application
subclasses and names in configuration: `Membership.ValidateUser(name, password)` runs the
configured `MembershipProvider`'s `ValidateUser`, `Roles.GetRolesForUser()` the `RoleProvider`'s.
Neither type is in the repository, and the repository's `DbMembershipProvider : MembershipProvider`
is what runs. A static call on a package type `F` (a bare type name, one the index does not
declare: `output.Write(...)` on a `Stream` variable runs the stream's own method) is linked to the
`override M` methods of the repository types deriving from a package type `B` when `B` and `F` are
guessed in the same namespace by the usings of both files (not by a file's own enclosing namespace:
two of the application's files in `Shop.Web` say nothing of a package's types), `B`'s name begins
with `F`'s (a trailing plural `s` dropped: `Roles` -> `RoleProvider`) and is longer, and the
member's name is `M`. Overloads taking the call's arguments are preferred; the facade may fill the
rest itself (`Roles.GetRolesForUser()` asks for the current user's), so when none fits, the
overrides taking more arguments than the call passes are taken (one taking fewer cannot be what a
call passing more runs). Always a guess (the link rests on the names and on what configuration
chooses): CALLS, `resolution="inferred"`, `via="facade"`, `guess`, `facade` and `base` (the package
types as written), `candidates` (every override linked from that call, so several say which could
run).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import accepts, receiver_property
from ragstream.index.graph_edits import add_edge, named_candidates
from ragstream.index.model import Node, Reference
from ragstream.index.symbols import SymbolTable

MIN_STEM = 4  # a facade's name shorter than this says too little to pair it with a base by its start


def link_facades(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference],
                 implementers: dict[str, set[str]]) -> int:
    """CALLS from each static call on a package facade to the overrides of the provider base it
    fronts (`implementers`: `package_implementers`); how many were added."""
    subclasses: dict[str, set[str]] = defaultdict(set)  # package base -> subclasses naming it through a using
    for base, types in implementers.items():
        subclasses[base].update(t for t in types if not _encloses(base, graph.nodes[t].get("name", "")))
    by_namespace: dict[str, list[str]] = defaultdict(list)  # namespace -> package bases guessed in it
    for base in sorted(b for b, types in subclasses.items() if types):
        by_namespace[base.rsplit(".", 1)[0]].append(base)
    added = 0
    for ref in refs:
        call: dict = ref.attrs.get("call") or {}
        guesses = call.get("receiver", {}).get("types")
        if not guesses or not call.get("named_receiver") or ref.source not in graph or ref.attrs.get("via_base") \
                or symbols.first("csharp", guesses, ("TYPE",)) is not None \
                or receiver_property(graph, symbols, call["receiver"]) is not None:
            continue  # not a static call on a named type, or on one of the repository's: the resolver's
        caller = graph.nodes[ref.source].get("name", "")
        imported = [guess for guess in guesses if not _encloses(guess, caller)]
        overrides = _overrides(symbols, call, _fronted(imported, by_namespace, subclasses))
        if not overrides:
            continue
        candidates = named_candidates([m.id for m, _, _ in overrides])
        for method, facade, base in overrides:
            added += add_edge(graph, ref.source, method.id, "CALLS", {
                "line": ref.line, "resolution": "inferred", "via": "facade", "guess": True,
                "facade": facade, "base": base, **candidates})
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
            if written.startswith(stem) and len(written) > len(facade):
                for subclass in sorted(subclasses[base]):
                    found.setdefault(subclass, (facade, written))
    return found


def _overrides(symbols: SymbolTable, call: dict, fronted: dict[str, tuple[str, str]]) -> list[tuple[Node, str, str]]:
    """The `override` methods named like the call's member that the fronted repository types
    declare: those taking the call's arguments, else those taking more (the facade fills the rest)."""
    found = [(method, facade, base) for subclass, (facade, base) in fronted.items()
             for method in symbols.members.get((subclass, call["member"]), ())
             if "override" in method.attrs.get("modifiers", ())]
    fitting = [item for item in found if accepts(item[0], call["arguments"], call.get("kinds", ()))]
    return fitting or [item for item in found
                       if len(item[0].attrs.get("parameters") or ()) > call["arguments"]]


def _encloses(guess: str, declared: str) -> bool:
    """`guess`'s namespace is one `declared` (a qualified name) sits in: a guess the file's own
    enclosing namespace made, not one of its usings."""
    namespace = guess.rpartition(".")[0]
    return not namespace or declared.startswith(namespace + ".")
