"""A bus's send inside a generic method narrowed by what its caller passes: the method's type
arguments, inferred from the arguments or written out.

`RunCommandAsync<TCommand>(TCommand command) where TCommand : ICommand` hands `command` on to a
command bus (`_commandExecutor.ExecuteAsync(command)`): `messages` links the method to the handler
of every command (each a guess, marked `message_parameter`), since inside it `command` is any
`ICommand`. C# binds the type parameter at each call (C# spec, "Type inference"; or as written:
`RunCommandAsync<PublishPageCommand>(c)`), so a caller passing a `PublishPageCommand` runs
`PublishPageCommandHandler` only. For each call resolved to such a method (or dispatched to one, through
an interface), the type passed to each of its parameters that decides a send (`message_parameter`)
is the explicit type argument when the parameter is declared with the method's type parameter,
else the argument's own type (`new PublishPageCommand()`, a typed local; `IQuery<TResult> query`
takes a `GetImageAssetDetailsByIdQuery`), by its qualified guesses or else the one type of its
name (a namespace the file does not name: C# 10's `global using`). An argument typed by the
caller's own type parameter binds nothing (it may be any type). A method that forwards the
parameter to another such method (`forwards`) passes the type on, up to MAX_CHAIN methods deep.

Each send kept (the handlers whose message is the passed type or one of its bases; none when
the type passed is a base every message derives from, nor when all are kept) gets a CALLS edge
from the caller: attrs `resolution="dispatch"`, `via="message"`, `message`, `host` (the generic
method called), `host_parameter` (its parameter the type was passed to), `sender` (the method
whose send it narrows, when the host passed the parameter on to it), `bound` (the type passed),
`type_by_name` when the type was found by its name alone, and with
several kept `guess` and their `candidates`. A handler of another message is never linked from
that caller. The edges are shortcuts standing for the path through the host: a flow walk does
not take them, it binds the host's parameter to `bound` when it enters the host from the caller
(`relations.table_paths`), and forwards it on from there. Run after `link_dispatch`.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.bound_dispatch import type_parameters_at
from ragstream.index.csharp.call_resolution import ancestors, receiver_types, resolve_call
from ragstream.index.csharp.extension_calls import instance_extension_call
from ragstream.index.csharp.messages import own_type_parameters
from ragstream.index.graph_edits import add_edge, named_candidates
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable

MAX_CHAIN = 3  # generic methods followed, one passing the parameter on to the next

# A type passed to a parameter: its TYPE id, and whether it was found by its name alone.
_Passed = tuple[str, bool]
# A send kept: the method that sends it, the message key.
_Kept = tuple[str, str]


def link_bound_method_dispatch(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """Add each caller's CALLS edges to the handlers its arguments bind; how many were added."""
    calls: list[tuple[str, int, dict]] = [(ref.source, ref.line, ref.attrs["call"]) for ref in refs
                                          if ref.attrs.get("call") and ref.source in graph]
    by_method: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    for source, line, call in calls:
        by_method[source].append((line, call))
    names = _sending_names(graph, calls)
    added = 0
    for source, line, call in calls:
        if call.get("member") not in names:
            continue
        unknown = type_parameters_at(graph, source)
        for host in _callees(graph, symbols, source, line, call):
            for parameter, passed in _passed(graph, symbols, host, call, unknown).items():
                kept = _kept_sends(graph, symbols, by_method, host, {parameter: passed}, 0)
                several = {"guess": True, **named_candidates(sorted(kept))} if len(kept) > 1 else {}
                for handler, (sender, message) in sorted(kept.items()):
                    if handler == source:
                        continue
                    added += add_edge(graph, source, handler, "CALLS", {
                        "line": line, "resolution": "dispatch", "via": "message", "message": message, "host": host,
                        "host_parameter": parameter, "bound": passed[0], **({"sender": sender} if sender != host else {}),
                        **({"type_by_name": True} if passed[1] else {}), **several})
    return added


def _sending_names(graph: nx.MultiDiGraph, calls: list[tuple[str, int, dict]]) -> set[str]:
    """The short names of the methods whose sends a type passed to them may narrow: those with a
    send decided by a parameter (`message_parameter`), and those forwarding a parameter to a call
    of such a name (MAX_CHAIN deep). Only calls of these names are resolved again."""
    names = {graph.nodes[source].get("name", "").rsplit(".", 1)[-1] for source, _, data in graph.edges(data=True)
             if data.get("type") == "CALLS" and data.get("message_parameter") is not None}
    for _ in range(MAX_CHAIN - 1):
        names |= {graph.nodes[source].get("name", "").rsplit(".", 1)[-1] for source, _, call in calls
                  if call.get("forwards") and call.get("member") in names}
    return names


def _callees(graph: nx.MultiDiGraph, symbols: SymbolTable, source: str, line: int, call: dict) -> list[str]:
    """The methods a call runs: those it resolves to and, for an interface's or a virtual one,
    the implementations `link_dispatch` linked from the same line."""
    resolved = set(resolve_call(graph, symbols, call).methods)
    dispatched = {target for _, target, data in graph.out_edges(source, data=True)
                  if data.get("type") == "CALLS" and data.get("resolution") == "dispatch"
                  and data.get("via") in resolved and data.get("line") == line}
    return sorted(method for method in resolved | dispatched if method in graph)


def _passed(graph: nx.MultiDiGraph, symbols: SymbolTable, method: str, call: dict,
            unknown: set[str]) -> dict[int, _Passed]:
    """The type a call passes to each of `method`'s parameters, where known (`_type_of`): the
    explicit type argument for a parameter declared with the method's type parameter, else the
    argument's own type; an extension method called on its receiver takes that as its `this`
    parameter (`instance_extension_call`), the call's arguments filling the ones after it."""
    node = graph.nodes[method]
    parameters = (node.get("attrs") or {}).get("parameters") or []
    own = own_type_parameters(node.get("signature", ""))
    explicit = call.get("type_arguments") or []
    specs = call.get("argument_types") or []
    if instance_extension_call(graph, method, call):  # `bus.Run(c)`: the receiver fills `this`
        specs = [call["receiver"], *specs]
    found: dict[int, _Passed] = {}
    for position, written in enumerate(parameters):
        declared = written.rstrip("?")
        if declared in own and len(explicit) == len(own):
            guesses = explicit[own.index(declared)]
        elif position < len(specs) and specs[position]:
            guesses = receiver_types(graph, symbols, specs[position])
        else:
            continue
        passed = _type_of(symbols, guesses) if guesses and guesses[-1] not in unknown else None
        if passed is not None:
            found[position] = passed
    return found


def _type_of(symbols: SymbolTable, guesses: list[str]) -> _Passed | None:
    """The repository's type the qualified guesses name, else the one type of the name as written."""
    node = symbols.first("csharp", guesses, ("TYPE",))
    if node is not None:
        return node.id, False
    named = symbols.short("csharp", guesses[-1].rsplit(".", 1)[-1], ("TYPE",))
    return (named[0].id, True) if len(named) == 1 else None


def _kept_sends(graph: nx.MultiDiGraph, symbols: SymbolTable, by_method: dict[str, list[tuple[int, dict]]],
                method: str, passed: dict[int, _Passed], depth: int) -> dict[str, _Kept]:
    """Handler -> the send of `method` (or of a method it forwards the parameter to) that the
    types passed keep, when they keep some but not all of a parameter's sends."""
    if not passed:
        return {}
    sends: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for _, target, data in graph.out_edges(method, data=True):
        if data.get("type") == "CALLS" and data.get("via") == "message" and data.get("message_parameter") in passed:
            sends[data["message_parameter"]].append((target, data["message"]))
    kept: dict[str, _Kept] = {}
    for parameter, targets in sends.items():
        bound = passed[parameter]
        chosen = [(target, message) for target, message in targets if _admits(graph, message, bound[0])]
        if chosen and len(chosen) < len(targets):
            kept.update({target: (method, message) for target, message in chosen})
    if depth + 1 < MAX_CHAIN:
        for line, call in by_method.get(method, ()):
            forwarded = {argument: passed[parameter] for argument, parameter in call.get("forwards", ())
                         if parameter in passed}
            for callee in _callees(graph, symbols, method, line, call) if forwarded else ():
                # `bus.RunAsync(command)`: argument 0 fills the extension's parameter 1
                shift = 1 if instance_extension_call(graph, callee, call) else 0
                if callee != method:
                    kept = {**_kept_sends(graph, symbols, by_method, callee,
                                          {argument + shift: bound for argument, bound in forwarded.items()},
                                          depth + 1), **kept}
    return kept


def _admits(graph: nx.MultiDiGraph, message: str, passed: str) -> bool:
    """A handler of `message` runs for a `passed`: the message is that type or one of its bases."""
    return message == passed or (passed in graph and message in ancestors(graph, passed))
