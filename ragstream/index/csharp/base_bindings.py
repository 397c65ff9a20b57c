"""Table accesses a generic type makes through its own type parameters, bound by the subclasses
whose base list names concrete type arguments.

`ExtendedAttributesController<TId, TEntityId, TEntity, TExtendedAttribute>.Post` sends an
`AddEditExtendedAttributeCommand<TId, TEntityId, TEntity, TExtendedAttribute>`, whose generic
handler writes through `_unitOfWork.Repository<TExtendedAttribute>()`: no table, until
`DocumentExtendedAttributesController : ExtendedAttributesController<int, int, Document,
DocumentExtendedAttribute>` binds `TExtendedAttribute` to `DocumentExtendedAttribute`. A type's
parameters are bound (`_bindings`), each binding by the subclass that wrote the concrete types:

- by each subclass's base list, position by position (a subclass that is generic itself passes
  on what its own subclasses bind), and
- for a generic message's handler, by the sends that reach it: the message's type arguments as
  the sender wrote them (`message_arguments`: `new Cmd<TEntity>(..)`, or the `Cmd<TEntity>
  command` it passes on) against those the handler's method takes (`Handle(Cmd<T> request)`),
  each of the sender's own parameters bound in turn by the sender's type's subclasses.

Each access through a type parameter (`data_access.type_parameter_accesses`) then READS or
WRITES the tables the bound entity maps to. Edges: attrs `resolution="inferred"`,
`via="type_argument"`, `binding="base_list"`, `entity`, `member`, `carrier`, `parameter` (the
type parameter bound), `bound_by` (the subclasses whose base list binds it, sorted: one edge
for them all) and `walk_bound=True`: a flow walk follows the edge only once it has passed
through one of those subclasses or a descendant (`relations.table_paths`), so the base alone
reaches no concrete table and a sibling subclass never reaches another's. A package's
repository (known by its type argument and verb alone) makes a guess, as in `data_access`.
Each binding subclass gets attrs `binds_type_parameters=True`: the walk remembers passing it.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import networkx as nx

from ragstream.index.csharp.call_resolution import generic_parts
from ragstream.index.csharp.data_access import ParametricAccess, entity_tables
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Node
from ragstream.index.symbols import SymbolTable

# A binding: the subclass that wrote the concrete types -> type parameter -> qualified guesses.
_Binding = tuple[str, dict[str, list[str]]]
MAX_BINDING_DEPTH = 4  # generic subclasses and senders followed, one after another


def link_bound_accesses(graph: nx.MultiDiGraph, symbols: SymbolTable, accesses: list[ParametricAccess]) -> Counter:
    """READS / WRITES from each access through a type parameter to the tables each binding of
    that parameter maps to; counts of the edges added, by type."""
    bound_by: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    first: dict[tuple[str, str, str], dict] = {}
    memo: dict[tuple[str, int], list[_Binding]] = {}
    for access in accesses:
        for subclass, binding in _bindings(graph, symbols, access.owner, 0, memo):
            entity = _entity(symbols, binding.get(access.parameter, []))
            if entity is None:
                continue
            for table in entity_tables(graph, entity.id):
                key = (access.source, table, access.edge_type)
                bound_by[key].add(subclass)
                first.setdefault(key, {
                    "line": access.line, "resolution": "inferred", "via": "type_argument", "binding": "base_list",
                    "entity": entity.id, "member": access.member, "carrier": access.carrier,
                    "parameter": access.parameter, "walk_bound": True, **({"guess": True} if access.guess else {})})
    added: Counter = Counter()
    for (source, table, edge_type), subclasses in bound_by.items():
        added[edge_type] += add_edge(graph, source, table, edge_type, {**first[(source, table, edge_type)],
                                                            "bound_by": sorted(subclasses)})
        for subclass in subclasses:  # a new dict: the parsed node's own attrs stay as parsed (reused)
            graph.nodes[subclass]["attrs"] = {**(graph.nodes[subclass].get("attrs") or {}), "binds_type_parameters": True}
    return added


def _bindings(graph: nx.MultiDiGraph, symbols: SymbolTable, owner: str, depth: int,
              memo: dict[tuple[str, int], list[_Binding]]) -> list[_Binding]:
    """Each concrete binding of `owner`'s type parameters, with the subclass that wrote it."""
    # keyed by depth too: what a type binds within the depth left to it (a type first met deep in
    # one chain is met again shallower in another, and must not keep the shorter answer)
    if (owner, depth) in memo:
        return memo[(owner, depth)]
    memo[(owner, depth)] = []  # a cycle binds nothing more
    node = symbols.nodes.get(owner)
    parameters = node.attrs.get("type_parameters") or [] if node is not None else []
    if node is None or not parameters or depth > MAX_BINDING_DEPTH:
        return []
    short = node.name.rsplit(".", 1)[-1]
    found: list[_Binding] = []
    for subclass, _, key in sorted(graph.in_edges(owner, keys=True)):
        if key not in ("INHERITS", "IMPLEMENTS") or subclass not in symbols.nodes:
            continue
        arguments = next((base["arguments"] for base in symbols.nodes[subclass].attrs.get("generic_bases", ())
                          if base["name"].rsplit(".", 1)[-1] == short), None)
        if arguments is not None and len(arguments) == len(parameters):
            found += _passed_on(graph, symbols, subclass, dict(zip(parameters, arguments)), depth, memo)
    for handler in _methods(graph, owner):
        for sender, _, data in sorted(graph.in_edges(handler, data=True), key=lambda e: e[0]):
            written = _message_arguments(graph, handler, data)
            sent = data.get("message_arguments") or _message_arguments(graph, sender, data)
            if data.get("via") != "message" or not written or len(sent) != len(written):
                continue
            bound = {parameter: [argument] for parameter, argument in zip(written, sent) if parameter in parameters}
            found += _passed_on(graph, symbols, str(graph.nodes[sender].get("parent")), bound, depth, memo)
    memo[(owner, depth)] = found
    return found


def _entity(symbols: SymbolTable, guesses: list[str]) -> Node | None:
    """The repository's type a binding names: by its qualified guesses, else (as a sender wrote
    it, unqualified) the one type of that name."""
    found = symbols.first("csharp", guesses, ("TYPE",))
    named = symbols.short("csharp", guesses[-1], ("TYPE",)) if found is None and guesses else []
    return found or (named[0] if len(named) == 1 else None)


def _passed_on(graph: nx.MultiDiGraph, symbols: SymbolTable, writer: str, binding: dict[str, list[str]],
               depth: int, memo: dict[tuple[str, int], list[_Binding]]) -> list[_Binding]:
    """`binding` as `writer` wrote it: concrete, the writer's binding; naming the writer's own type
    parameters, each binding of those (by the writer's subclasses and senders)."""
    own = (symbols.nodes[writer].attrs.get("type_parameters") or []) if writer in symbols.nodes else []
    if not any(guesses[-1] in own for guesses in binding.values()):
        return [(writer, binding)] if writer in graph else []
    return [(subclass, {parameter: outer.get(guesses[-1], []) if guesses[-1] in own else guesses
                        for parameter, guesses in binding.items()})
            for subclass, outer in _bindings(graph, symbols, writer, depth + 1, memo)]


def _methods(graph: nx.MultiDiGraph, type_id: str) -> list[str]:
    return sorted(target for _, target, key in graph.out_edges(type_id, keys=True)
                  if key == "DEFINES" and graph.nodes[target].get("kind") == "METHOD")


def _message_arguments(graph: nx.MultiDiGraph, method: str, data: dict) -> list[str]:
    """The type arguments of `method`'s parameter of the message type a dispatch edge names: the
    handler's (`Handle(Cmd<T> request)`: `T`), or the sender's that it passes on."""
    message = graph.nodes[data["message"]].get("name", "") if data.get("message") in graph else ""
    return _arguments_of(graph, method, message.rsplit(".", 1)[-1])


def _arguments_of(graph: nx.MultiDiGraph, method: str, generic: str) -> list[str]:
    """The type arguments of `method`'s one parameter of the generic type `generic`, as written."""
    parameters = (graph.nodes[method].get("attrs") or {}).get("parameters") or []
    found = [arguments for name, arguments in map(generic_parts, parameters) if name.rsplit(".", 1)[-1] == generic]
    return [argument.strip() for argument in found[0]] if generic and len(found) == 1 else []
