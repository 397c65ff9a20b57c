"""Domain events: raised by an entity, collected, published when the unit of work is saved.

`RegisterDomainEvent(new ToDoItemCompletedEvent(this))` (or `AddDomainEvent(...)`, whatever the
base class calls it) stores the event in a collection of the entity's base; a dispatcher (an EF
interceptor's hook, or the context's `SaveChanges` override) publishes the collected events when
the entity is saved, and the mediator runs each event's handlers. The type is the link, never a
name: a raise is a call on the entity itself (no receiver, `this` or `base`) passing an event `X`
(`new X(...)` or a variable declared `X`) that has handlers (`messages.handlers_by_message`:
`INotificationHandler<X>`, `IDomainEventHandler<X>`, `IHandle<X>`, ...), to a method of a
package's base (not in the repository) or one whose first parameter is a base type of `X` (the
event base the collection holds; a method taking `X` itself handles it, it does not collect it).
Edges: CALLS from the raising method (or property) to each handler of `X`, `resolution=
"dispatch"`, `via="domain_event"`, `message` (X's TYPE node), `member`. A handler of another
event is never linked.

The dispatcher is the step between the save and the handlers: a method that runs around a save
(an interceptor's hook and the methods of its type the hook calls, or a context's own
`SaveChanges*`) and hands what it collected on to a publisher (`Publish...` or `Dispatch...` of a
mediator or dispatcher the repository does not implement). It is linked to the handlers of every
event the repository raises (attrs `dispatcher=True`), each a guess (which events it publishes is decided at run time by
what the saved entities collected).
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, resolve_call, settled_in_repository
from ragstream.index.csharp.interceptors import SAVE_CALLS, interceptor_hooks, short_name
from ragstream.index.csharp.messages import UNDECLARED, handlers_by_message, message_keys
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable

PUBLISHES = ("Publish", "Dispatch")  # the verbs a mediator or event dispatcher publishes by
CONTEXT_BASES = ("DbContext",)  # `DbContext`, `IdentityDbContext`: a context's own SaveChanges* dispatches


def link_domain_events(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each raise of a domain event to its handlers, and from each dispatcher to the
    handlers of every raised event; how many were added."""
    refs = list(refs)
    handlers = handlers_by_message(graph, symbols)
    raised: dict[str, list[str]] = {}
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        if not call or not call.get("message") or ref.source not in graph or not _on_itself(graph, ref):
            continue
        event = _event_type(symbols, call["message"])
        targets = [h for h in handlers.get(event, ()) if h != ref.source]
        if not targets or not _collects(graph, symbols, call, event):
            continue
        raised[event] = targets
        for handler in targets:
            added += add_edge(graph, ref.source, handler, "CALLS", {
                "line": ref.line, "resolution": "dispatch", "via": "domain_event", "message": event,
                "member": call["member"]})
    for dispatcher, line in _dispatchers(graph, symbols, refs):
        for event, targets in sorted(raised.items()):
            for handler in targets:
                added += add_edge(graph, dispatcher, handler, "CALLS", {
                    "line": line, "resolution": "dispatch", "via": "domain_event", "message": event,
                    "dispatcher": True, "guess": True})
    return added


def _event_type(symbols: SymbolTable, guesses: list[str]) -> str:
    """The event's TYPE id: as the file's usings name it, else the one type of its name (a
    namespace the file does not name: C# 10's `global using`); "" when neither."""
    key = next(iter(message_keys(symbols, guesses)), "")
    if key and not key.startswith(UNDECLARED):
        return key
    named = symbols.short("csharp", guesses[-1].rsplit(".", 1)[-1], ("TYPE",)) if guesses else []
    return named[0].id if len(named) == 1 else ""


def _on_itself(graph: nx.MultiDiGraph, ref: Reference) -> bool:
    """The call goes to the caller's own type or its bases (no receiver, `this`, `base`)."""
    if ref.attrs.get("via_base"):
        return True
    parent = graph.nodes[ref.source].get("parent")
    owner = graph.nodes[parent].get("name") if parent in graph else None
    return list(ref.attrs["call"]["receiver"].get("types") or ()) == [owner]


def _collects(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict, event: str) -> bool:
    """The called method stores the event: a package's (the resolver finds none here), or one whose
    first parameter is one of the event's base types."""
    methods = resolve_call(graph, symbols, call).methods
    if not methods:
        return True
    bases = {short_name(graph, base) for base in ancestors(graph, event)}
    return any(parameters[0].split("<", 1)[0].rstrip("?").rsplit(".", 1)[-1] in bases
               for method in methods for parameters in [graph.nodes[method].get("attrs", {}).get("parameters") or [""]])


def _dispatchers(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference]) -> list[tuple[str, int]]:
    """(method, line) of each publish that runs around a save: in an interceptor's hook or a
    method of its type the hook calls, or in a context's own `SaveChanges*`."""
    around = {hook for hooks in interceptor_hooks(graph).values() for hook in hooks}
    around |= {callee for hook in list(around) for _, callee, key in graph.out_edges(hook, keys=True)
               if key == "CALLS" and graph.nodes[callee].get("parent") == graph.nodes[hook].get("parent")}
    around |= {node for node, data in graph.nodes(data=True)
               if data.get("kind") == "METHOD" and short_name(graph, node) in SAVE_CALLS and _in_context(graph, node)}
    found = [(ref.source, ref.line) for ref in refs
             if ref.source in around and (ref.attrs.get("call") or {}).get("member", "").startswith(PUBLISHES)
             and not settled_in_repository(graph, symbols, ref.attrs["call"])]
    return list(dict(found).items())


def _in_context(graph: nx.MultiDiGraph, method: str) -> bool:
    """The method is declared by an EF context (a type deriving from `DbContext` or its kin)."""
    owner = graph.nodes[method].get("parent") or ""
    return owner in graph and any(short_name(graph, base).endswith(CONTEXT_BASES) for base in ancestors(graph, owner))
