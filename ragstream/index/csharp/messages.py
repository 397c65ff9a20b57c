"""Requests, commands and events dispatched by their type to the handler the repository declares.

`_mediator.Send(new GetMyOrders(name))` names no handler: a mediator (MediatR, or a home-made
command or query bus) finds `GetMyOrdersHandler.Handle` at run time because the handler's type
binds the message type as a type argument of a generic base (`IRequestHandler<GetMyOrders, T>`,
`INotificationHandler<OrderPlaced>`, `ICommandHandler<T>`, `CommandHandler<T>`). Whatever the
bus, that binding is the link: a call whose first argument's type is a message `X` is linked to
each handler of `X` — a type with a generic base bound to `X` and exactly one method whose first
parameter is an `X` (a repository of `X` with `Add(X)` and `Remove(X)` handles nothing).

Only calls the resolver does not already settle on a method with a body are dispatched: a bus
or mediator from a package, an interface's method, or nothing found at all. Edges: CALLS,
attrs `resolution="dispatch"`, `via="message"`, `message` (the message's TYPE node) and `member`
(the method called, `Send` / `Publish` / ...). A handler of another message is never linked.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import resolve_call
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable, is_interface


def link_messages(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each call that passes a message to the message's handlers; how many were added."""
    handlers = _handlers_by_message(graph, symbols)
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        guesses = call.get("message") if call else None
        if not guesses or ref.source not in graph:
            continue
        message = _find_type(symbols, guesses)
        targets = [method for method in handlers.get(message or "", ()) if method != ref.source]
        if not targets or _settled(graph, symbols, call):
            continue
        for method in targets:
            added += add_edge(graph, ref.source, method, "CALLS", {
                "line": ref.line, "resolution": "dispatch", "via": "message", "message": message,
                "member": call["member"]})
    return added


def _handlers_by_message(graph: nx.MultiDiGraph, symbols: SymbolTable) -> dict[str, list[str]]:
    """Message TYPE id -> the handler METHOD ids (one per handler type)."""
    found: dict[str, list[str]] = defaultdict(list)
    for node in symbols.nodes.values():
        if node.kind != "TYPE" or is_interface(node):
            continue
        messages = {_find_type(symbols, guesses) for base in node.attrs.get("generic_bases", ())
                    for guesses in base["arguments"]}
        for message in sorted(filter(None, messages)):
            short = symbols.nodes[message].name.rsplit(".", 1)[-1]
            taking = [method for method in _methods(graph, node.id)
                      if _first_parameter(symbols.nodes[method].attrs) == short]
            if len(taking) == 1:
                found[message].append(taking[0])
    return found


def _find_type(symbols: SymbolTable, guesses: Iterable[str]) -> str | None:
    node = next((n for n in (symbols.find("csharp", g, ("TYPE",)) for g in guesses) if n), None)
    return node.id if node is not None else None


def _methods(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    return sorted(target for _, target, key in graph.out_edges(type_id, keys=True)
                  if key == "DEFINES" and graph.nodes[target].get("kind") == "METHOD")


def _first_parameter(attrs: dict) -> str | None:
    """The first parameter's type name, unqualified, without type arguments or `?`."""
    parameters = attrs.get("parameters") or ()
    return parameters[0].split("<", 1)[0].rstrip("?") if parameters else None


def _settled(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> bool:
    """The resolver found the call's method, with a body, in the repository."""
    found = resolve_call(graph, symbols, call)
    return any(not is_interface(symbols.nodes.get(graph.nodes[method].get("parent", "")))
               and "abstract" not in graph.nodes[method].get("attrs", {}).get("modifiers", ())
               for method in found.methods)
