"""Mediator pipeline behaviours: the code that runs around every request sent.

`_mediator.Send(new CreateOrder(...))` reaches `CreateOrderHandler.Handle` (`messages`), but
MediatR (and its look-alikes) first runs every registered `IPipelineBehavior<TRequest, TResponse>`
(validation, authorisation, logging, transactions), each an open generic type that calls `next()`
to go on. A behaviour is a type whose generic base is `IPipelineBehavior` bound to its own type
parameters; it applies to a request when the request satisfies its `where TRequest : ...`
constraints: a constraint type the repository declares must be one of the request type's bases
(`where TRequest : ICommand`: queries skip it); a library's (`IRequest<TResponse>`, `notnull`,
`class`) is taken as met. Each request sent (a `messages` edge whose member is `Send...`; a
notification published runs no pipeline) is linked to each applicable behaviour's `Handle`:
CALLS, `resolution="dispatch"`, `via="pipeline"`, `message`, `member`, a guess (which behaviours
run, and in which order, is registration).
"""
from __future__ import annotations

import re

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors
from ragstream.index.csharp.interceptors import short_name
from ragstream.index.graph_edits import add_edge
from ragstream.index.symbols import SymbolTable

BEHAVIOUR_BASES = frozenset({"IPipelineBehavior", "IPipelineBehaviour"})
SENDS = ("Send",)
_CONSTRAINT = re.compile(r"\bwhere\s+(\w+)\s*:\s*(.+?)(?=\s+where\s+\w+\s*:|$)")
_NESTED = re.compile(r"<[^<>]*>")


def link_pipeline_behaviours(graph: nx.MultiDiGraph, symbols: SymbolTable) -> int:
    """CALLS from each request sent to the pipeline behaviours that apply to it; how many were added."""
    behaviours = _behaviours(graph)
    if not behaviours:
        return 0
    sends = [(source, data) for source, _, key, data in list(graph.edges(keys=True, data=True))
             if key == "CALLS" and data.get("via") == "message" and str(data.get("member", "")).startswith(SENDS)]
    added = 0
    for source, data in sends:
        message = data["message"]
        for handle, required in behaviours:
            if all(_met(graph, symbols, message, constraint) for constraint in required):
                added += add_edge(graph, source, handle, "CALLS", {
                    "line": data.get("line", 0), "resolution": "dispatch", "via": "pipeline",
                    "message": message, "member": data["member"], "guess": True})
    return added


def _behaviours(graph: nx.MultiDiGraph) -> list[tuple[str, list[str]]]:
    """(the behaviour's `Handle` METHOD id, its request's constraint types) of each behaviour."""
    found = []
    for node, data in sorted(graph.nodes(data=True)):
        attrs = data.get("attrs") or {}
        parameters = attrs.get("type_parameters") or []
        bound = [base for base in attrs.get("generic_bases", ()) if base["name"].rsplit(".", 1)[-1] in BEHAVIOUR_BASES
                 and base["arguments"] and base["arguments"][0][-1] in parameters]
        if data.get("kind") != "TYPE" or attrs.get("type_kind") == "interface" or not bound:
            continue
        request = bound[0]["arguments"][0][-1]
        handles = [m for _, m, key in sorted(graph.out_edges(node, keys=True))
                   if key == "DEFINES" and short_name(graph, m) in ("Handle", "HandleAsync")]
        if handles:
            found.append((handles[0], constraints(data.get("signature", ""), request)))
    return found


def constraints(signature: str, parameter: str) -> list[str]:
    """The type names `where parameter : ...` demands, type arguments dropped (`IRequest<T>`: `IRequest`)."""
    names = []
    for name, clause in _CONSTRAINT.findall(signature):
        while _NESTED.search(clause):
            clause = _NESTED.sub("", clause)
        if name == parameter:
            names += [part.strip().rstrip("?").rsplit(".", 1)[-1] for part in clause.split(",")]
    return [n for n in names if n and n[0].isupper()]  # not `notnull`, `class`, `struct`, `new()`


def _met(graph: nx.MultiDiGraph, symbols: SymbolTable, message: str, constraint: str) -> bool:
    """The message type is or derives from the constraint when the repository declares it; a
    library's constraint is taken as met (its bases may lie in the library too)."""
    if not symbols.short("csharp", constraint, ("TYPE",)):
        return True
    return message in graph and (short_name(graph, message) == constraint
                                 or any(short_name(graph, base) == constraint for base in ancestors(graph, message)))
