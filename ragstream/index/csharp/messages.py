"""Requests, commands and events dispatched by their type to the handler the repository declares.

`_mediator.Send(new GetMyOrders(name))` names no handler: a mediator (MediatR, or a home-made
command or query bus) finds `GetMyOrdersHandler.Handle` at run time because the handler's type
binds the message type as a type argument of a generic base (`IRequestHandler<GetMyOrders, T>`,
`INotificationHandler<OrderPlaced>`, `ICommandHandler<T>`, `CommandHandler<T>`). Whatever the
bus, that binding is the link: a call whose first argument's type is a message `X` (as written,
or declared by the call the argument's value came from: `var command = model.ToRegisterCommand()`
then `_bus.SendCommand(command)`) is linked to
each handler of `X` — a type with a generic base bound to `X` (not the type itself, as
`IEquatable<T>` is) and exactly one method named as handler contracts name it (`Handle...`,
`On...`, `Execute`, `Consume`, ...; not a private one, which implements no contract) whose first parameter (or
second, after the bus's `...Context`), and no other, is an `X` (a
repository of `X` with `Add(X)` and `Remove(X)` handles nothing, nor does `Compare(X, X)`). A call
on an in-memory collection (`filters.Add(filter)`), on a service bound to the message itself
(`IValidator<X>`) or on a static helper (`JsonConvert.SerializeObject(x)`) sends nothing; a bare
name is a sender only as a property or field the caller's type or a base declares
(`Mediator.Send(new X())`, `protected IMediator Mediator` on a base controller).

Only calls the resolver does not already settle on a method with a body are dispatched: a bus
or mediator from a package, an interface's method, or nothing found at all. Edges: CALLS,
attrs `resolution="dispatch"`, `via="message"`, `message` (the message's TYPE node) and `member`
(the method called, `Send` / `Publish` / ...). A handler of another message is never linked. A
message type the index does not declare (its project left out, a package) is matched by the
qualified names the sender's and the handler's usings give it, and the edge is a guess.

A bus of the repository's own that hands its generic parameter on (`SendCommand<T>(T command)
where T : Command { return _mediator.Send(command); }`) sends whatever its caller passed: the
method is linked, for a call on a type outside the repository (a mediator; `_store.Save(@event)` on
the repository's own interface is the resolver's), to the handlers of every message that derives from each type its `where`
constraint names (a message of another base is never linked; an unconstrained `T` links
nothing), or, for a parameter of a type constructed over the method's type parameter
(`RunQueryAsync<TResult>(IQuery<TResult> query)`), from that generic type; each edge marked `message_parameter` (the parameter whose argument decides it), so
a walk that knows what its caller passed follows only that message's handler
(`relations.table_paths`); with several handlers each edge is a guess naming them (`guess`,
`candidates`), which a walk that does not know what was passed does not follow. A sender's
direct edge to a handler that such a bus method, reached by the same call (on the same line),
also links gets `through` (the bus method): the call goes through the bus, and a walk takes
that way. An edge to a handler method a generic base declares (`_inherited_handler`) carries
`receiver_type`, the subclass that binds the message: the object the method runs on, which
decides the base's own calls to its abstract members (`this.GetProcess(..)`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from ragstream.index.csharp.call_resolution import (
    ancestors,
    names_a_member,
    receiver_types,
    resolve_call,
    settled_in_repository,
)
from ragstream.index.csharp.data_access import NOT_DATA
from ragstream.index.csharp.interceptors import short_name
from ragstream.index.csharp.pipeline_behaviours import constraints
from ragstream.index.graph_edits import add_edge, named_candidates
from ragstream.index.model import Reference
from ragstream.index.symbols import SymbolTable, is_interface


HANDLER_METHODS = frozenset({"Execute", "ExecuteAsync", "Consume", "ConsumeAsync", "Process", "ProcessAsync",
                             "Invoke", "InvokeAsync", "Run", "RunAsync", "Dispatch", "DispatchAsync"})


def link_messages(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each call that passes a message to the message's handlers; how many were added."""
    handlers, inherited = handlers_by_message(graph, symbols), inherited_handler_types(graph, symbols)
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        if not call or not (call.get("message") or call.get("message_returned")) or ref.source not in graph \
                or not _may_send(graph, symbols, call):
            continue
        # as written, or what the call that returned it declares (`model.ToRegisterCommand()`), or
        # the type argument of a library's converter that declares nothing here (a guess)
        guesses = call.get("message") or receiver_types(graph, symbols, call["argument"])
        converted = [] if guesses else converted_to(graph, symbols, call["argument"])
        guesses = guesses or converted
        if not guesses:
            continue
        keys = message_keys(symbols, guesses)
        # each handler under the most qualified name the two agree on
        targets = {method: key for key in sorted(keys, key=len) for method in handlers.get(key, ())
                   if method != ref.source}
        if not targets or _bound_to(symbols, call, keys[0]) or settled_in_repository(graph, symbols, call):
            continue
        for method, key in targets.items():
            attrs = {"line": ref.line, "resolution": "dispatch", "via": "message", "message": key,
                     "member": call["member"], **_receiver_type(inherited, key, method),
                     # `Cmd<TEntity>` as the sender wrote it: binds a generic handler (`base_bindings`)
                     **({"message_arguments": call["message_arguments"]} if call.get("message_arguments") else {})}
            if key.startswith(UNDECLARED):
                attrs["guess"] = True  # a message type outside the index: matched by its qualified name
            if converted:
                attrs.update(guess=True, message_from="type_argument")
            added += add_edge(graph, ref.source, method, "CALLS", attrs)
    return added


def converted_to(graph: nx.MultiDiGraph, symbols: SymbolTable, argument: dict) -> list[str]:
    """The message a library's generic method is taken to return when the repository declares no
    method for the call and it names one type argument of its own: that type (`var cmd =
    _mapper.Map<EditArticleCommand>(model); _mediator.Send(cmd)`, AutoMapper; `JsonSerializer
    .Deserialize<T>(json)`). The library's declaration is not read, so it is a guess; it is asked
    only of a message sent, where a handler of exactly that type must also exist."""
    call = argument.get("call")
    if not call:
        return []
    written = call.get("type_arguments") or []
    if len(written) != 1 or resolve_call(graph, symbols, call).methods:
        return []
    return list(written[0])


def link_forwarded_messages(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> int:
    """CALLS from each generic bus method that hands its message parameter on to a mediator to
    the handlers of every message its constraint admits, and `through` on the direct edges its
    callers' sends have; how many edges were added."""
    handlers, inherited = handlers_by_message(graph, symbols), inherited_handler_types(graph, symbols)
    buses: dict[str, set[str]] = defaultdict(set)  # bus method -> the handlers it now reaches
    added = 0
    for ref in refs:
        call = ref.attrs.get("call")
        if not call or ref.source not in graph or not _may_send(graph, symbols, call):
            continue
        forwarded = _forwarded_parameter(graph, ref.source, call)
        if forwarded is None or resolve_call(graph, symbols, call).methods:
            continue  # `_eventStore.Save(@event)`: the repository's own method, not a mediator
        position, required = forwarded
        admitted = [(key, method) for key, methods in handlers.items()
                    if not key.startswith(UNDECLARED) and _derives(graph, key, required) for method in methods]
        # which handler runs, the message passed decides: with several, each is a guess
        several = {"guess": True, **named_candidates([method for _, method in admitted])} if len(admitted) > 1 else {}
        for key, method in admitted:
            buses[ref.source].add(method)
            added += add_edge(graph, ref.source, method, "CALLS", {
                "line": ref.line, "resolution": "dispatch", "via": "message", "message": key,
                "member": call["member"], "message_parameter": position, **_receiver_type(inherited, key, method),
                **several})
    for bus, reached in buses.items():
        _mark_through(graph, bus, reached)
    return added


def _receiver_type(inherited: dict[tuple[str, str], str], key: str, method: str) -> dict:
    """`receiver_type`: the subclass an inherited handler method runs on (a walk binds its `this`)."""
    return {"receiver_type": inherited[(key, method)]} if (key, method) in inherited else {}


def _may_send(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> bool:
    """Not a call on an in-memory collection, nor on a bare name that is no member, property or
    field (`JsonConvert.SerializeObject(command)`): those send nothing."""
    return not _in_memory(call) \
        and not (call.get("named_receiver") and not names_a_member(graph, symbols, call["receiver"]))


def _forwarded_parameter(graph: nx.MultiDiGraph, method: str, call: dict) -> tuple[int, list[str]] | None:
    """(the parameter, the types a message passed to it must derive from) when the call passes on,
    as its first argument, a parameter of the calling method typed by the method's own type
    parameter: `T command` with `where T : Command` (the types the clause names), or a type
    constructed over it, `IQuery<TResult> query` (the generic type itself: any query)."""
    node = graph.nodes[method]
    position = next((parameter for argument, parameter in call.get("forwards", ()) if argument == 0), None)
    parameters = (node.get("attrs") or {}).get("parameters") or []
    if not call.get("message") or position is None or position >= len(parameters):
        return None
    signature = node.get("signature", "")
    written = parameters[position]
    own = own_type_parameters(signature)
    if written in own:
        required = constraints(signature, written)
    else:
        constructed = _CONSTRUCTED.fullmatch(written)
        over_own = constructed is not None and set(re.findall(r"\w+", constructed.group(2))) & set(own)
        required = [constructed.group(1).rsplit(".", 1)[-1]] if constructed is not None and over_own else []
    return (position, required) if required else None


_TYPE_PARAMETERS = re.compile(r"<([^<>]*)>\s*$")  # `SendCommand<T>` before its `(`
_CONSTRUCTED = re.compile(r"([\w.]+)<(.+)>\??")  # `IQuery<TResult>`: the generic type, its arguments


def own_type_parameters(signature: str) -> list[str]:
    """The type parameters a method declares itself (`RunCommandAsync<TCommand>(..)`: TCommand)."""
    own = _TYPE_PARAMETERS.search(signature.split("(", 1)[0])
    return [t.strip() for t in own.group(1).split(",")] if own is not None else []


def _derives(graph: nx.MultiDiGraph, message: str, required: list[str]) -> bool:
    """The message type derives from every type named (in the repository or a package's)."""
    names = {short_name(graph, base) for base in ancestors(graph, message)} if message in graph else set()
    return all(name in names for name in required)


def _mark_through(graph: nx.MultiDiGraph, bus: str, reached: set[str]) -> None:
    """`through` on each direct message edge of a caller of `bus` whose call, on the same line,
    `bus` also serves."""
    member = short_name(graph, bus)
    for caller, _, key, call in list(graph.in_edges(bus, keys=True, data=True)):
        if key != "CALLS":
            continue
        for _, handler, edge, data in graph.out_edges(caller, keys=True, data=True):
            if edge == "CALLS" and handler in reached and data.get("via") == "message" \
                    and data.get("member") == member and "message_parameter" not in data \
                    and data.get("line") == call.get("line"):
                data["through"] = bus


# A message type the index does not declare (another project, a package) is keyed by each
# qualified name its file's usings give it: a sender and a handler that import the same
# namespace agree on one.
UNDECLARED = "?"


def message_keys(symbols: SymbolTable, guesses: Iterable[str]) -> list[str]:
    """The message's TYPE id, or else its qualified guesses marked undeclared."""
    declared = _find_type(symbols, guesses)
    return [declared] if declared else [UNDECLARED + g for g in guesses if "." in g]


def handlers_by_message(graph: nx.MultiDiGraph, symbols: SymbolTable) -> dict[str, list[str]]:
    """Message key (`message_keys`) -> the handler METHOD ids (one per handler type)."""
    found: dict[str, list[str]] = defaultdict(list)
    for key, method, _ in _handler_bindings(graph, symbols):
        found[key].append(method)
    return found


def inherited_handler_types(graph: nx.MultiDiGraph, symbols: SymbolTable) -> dict[tuple[str, str], str]:
    """(message key, handler METHOD a base declares) -> the subclass that binds the message: the
    object the container runs the inherited method on (its `this`, which decides the base's calls
    to its own abstract or virtual members)."""
    return {(key, method): handler for key, method, handler in _handler_bindings(graph, symbols)
            if graph.nodes[method].get("parent") != handler}


def _handler_bindings(graph: nx.MultiDiGraph, symbols: SymbolTable) -> Iterable[tuple[str, str, str]]:
    """(message key, handler METHOD, the handler TYPE binding the message) for each handler."""
    for node in symbols.nodes.values():
        if node.kind != "TYPE" or is_interface(node):
            continue
        bound = [(generic["name"], position, g) for generic in node.attrs.get("generic_bases", ())
                 for position, g in enumerate(generic["arguments"])]
        for base, position, guesses in bound:
            keys = [key for key in message_keys(symbols, guesses) if key != node.id]  # not `IEquatable<Self>`
            if not keys:
                continue
            short = guesses[-1].rsplit(".", 1)[-1]
            # a private method implements no contract (`OnTransactionComplete(X)` beside `ExecuteAsync(X, ..)`)
            taking = [method for method in _methods(graph, node.id)
                      if _handles(symbols.nodes[method].name) and _takes_one(symbols.nodes[method].attrs, short)
                      and "private" not in symbols.nodes[method].attrs.get("modifiers", ())] \
                or _inherited_handler(graph, symbols, node.id, base, position)
            if len(taking) == 1:
                yield from ((key, taking[0], node.id) for key in keys)


def _inherited_handler(graph: nx.MultiDiGraph, symbols: SymbolTable, handler: str, base: str,
                       position: int) -> list[str]:
    """The handler method a closed subclass inherits (`GetStreamHandler : ProcessHandler<GetStream>`,
    `abstract class ProcessHandler<T> : IRequestHandler<T, R>` declaring `Handle(T request, ...)`):
    the repository base's one handler method taking, first, the type parameter the subclass binds
    to the message. C# substitutes the argument for the parameter in the inherited member, so the
    container's `IRequestHandler<GetStream, R>` is the subclass and its `Handle` is the base's."""
    bases = [target for _, target, key in graph.out_edges(handler, keys=True) if key == "INHERITS"
             and graph.nodes[target].get("kind") == "TYPE"
             and graph.nodes[target].get("name", "").rsplit(".", 1)[-1] == base]
    if len(bases) != 1:
        return []
    parameters = graph.nodes[bases[0]].get("attrs", {}).get("type_parameters") or []
    if position >= len(parameters):
        return []
    return [method for method in _methods(graph, bases[0])
            if _handles(symbols.nodes[method].name) and _takes_one(symbols.nodes[method].attrs, parameters[position])]


def _find_type(symbols: SymbolTable, guesses: Iterable[str]) -> str | None:
    node = symbols.first("csharp", guesses, ("TYPE",))
    return node.id if node is not None else None


def _methods(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    return sorted(target for _, target, key in graph.out_edges(type_id, keys=True)
                  if key == "DEFINES" and graph.nodes[target].get("kind") == "METHOD")


def _handles(name: str) -> bool:
    """Named as handler contracts name their method (`Handle`, `HandleAsync`, `Consume`,
    `Execute`, `OnOrderPlaced`): a validator's `BeUniqueTitle(X, ...)` handles nothing."""
    short = name.rsplit(".", 1)[-1]
    return short in HANDLER_METHODS or short.startswith(("Handle", "On"))


def _takes_one(attrs: dict, message: str) -> bool:
    """The method's first parameter is a `message` (or the bus's context of one: MassTransit's
    `Consume(ConsumeContext<OrderPlaced> context)`), or its second after the bus's context (DotNetCqs'
    `HandleAsync(IMessageContext context, IncidentClosed message)`), and no other is (`Compare(X, X)`
    compares)."""
    types = [_in_context(written) or written.split("<", 1)[0].rstrip("?") for written in attrs.get("parameters") or ()]
    position = 1 if len(types) > 1 and types[0].rsplit(".", 1)[-1].endswith("Context") else 0
    return len(types) > position and types[position] == message and types.count(message) == 1


def _in_context(written: str) -> str | None:
    """`X` of a context type carrying one message (`ConsumeContext<X>`, `IMessageContext<X>`), else None."""
    outer, _, inner = written.partition("<")
    inner = inner.rstrip("?").removesuffix(">").strip()
    return inner.rsplit(".", 1)[-1] if outer.rsplit(".", 1)[-1].endswith("Context") and inner \
        and not any(c in inner for c in "<>,") else None


def _bound_to(symbols: SymbolTable, call: dict, message: str) -> bool:
    """The receiver is a service of that very message (`IValidator<PlaceOrder>.Validate(command)`),
    not a bus that sends it on."""
    entities = (call.get("data") or {}).get("entities") or ()
    return any(message in message_keys(symbols, guesses) for guesses in entities)


def _in_memory(call: dict) -> bool:
    """A call on a collection (`filters.Add(filter)`) stores its argument; it sends nothing."""
    generic = (call.get("data") or {}).get("generic") or ""
    return generic.rsplit(".", 1)[-1] in NOT_DATA
