"""Table reads and writes that flow through an entity type argument (EF Core, generic repositories).

In EF Core code the table is never named: `db.Orders.Add(o)` writes the table `Order` maps to
because `Orders` is a `DbSet<Order>`; `orders.AddAsync(o)` on an `IRepository<Order>` does too,
whatever implements the repository (often a base class from a package). The type argument is the
link. A call whose receiver carries an entity type argument — a variable or property of a
generic type, or what a generic method returns (`db.Set<Order>()`) — READS or WRITES each table
that the entity MAPS_TO (so run after `ef_graph.settle_ef_mappings`):

- On a query type (`DbSet<T>`, `IQueryable<T>`, linq2db's `ITable<T>`), and on what an ORM's
  table method returns (`Set<T>()`, NHibernate's `Query<T>()`; `calls.TABLE_OF_TYPE`), every
  call touches the table: a write verb (`Add`, `Remove`, `Update`, `ExecuteDelete`, ...) writes it, anything else
  (`Where`, `FindAsync`, `ToListAsync`, `Include`) reads it.
- A member a generic base declares (`Query.Include(...)` in a `Specification<Order>`) carries
  the base's type argument, and so does one a receiver's type inherits from its generic base
  (`_reviews.Query()` on an `IReviewRepository : IRepository<Review>`); `.Include(o => o.Items)`
  reads the navigation's entity's table too, and so does a projection (`ProjectTo<Model>`)
  whose type names the navigation (a guess);
  a call chained on a query (`db.Orders.Include(...).Where(...).ToList()`) reads what it does.
- A write verb of a persistence API outside the repository passed a mapped entity
  (`context.Remove(order)`, `session.SaveOrUpdate(entry)`) writes the entity's table, and so does
  setting a written state on its entry (`db.Entry(user).State = EntityState.Modified`; attrs `state`).
- On any other generic type that is not an in-memory collection or a framework helper
  (`List<T>`, `ILogger<T>`, `IOptions<T>`), only a data verb counts: a write verb writes, a read
  verb (`Get`, `List`, `Find`, `Count`, `Any`, ...) reads, and other calls (`Validate`) touch
  nothing. A repository type the repository does not declare is known only by its type argument
  and the method's name: that edge is a guess (`guess=True`).

An entity no mapping maps reaches the one table named after it (its name or plural, under any
schema or `Prefix_`), as a guess (`table_by_name`), and maps to it (MAPS_TO, `via="table_by_name"`, a
guess: its properties then name the table's columns). A method that loads an entity through a query and saves the unit of work (`SaveChanges`,
`Flush`), or changes a member of what the query returned (`dept.Name = name`: saved by whatever
saves the unit of work later), may write what it changed (EF's change tracking): a WRITES beside
the READS, a guess, `via="change_tracking"`. A write of an entity also writes the entities it holds in collection
properties (`ICollection<OrderItem> Items`: EF inserts, updates and cascades them with their
owner), a guess, `via="aggregate"`, attrs `navigation`. Adding to or removing from a many-to-many
navigation (`post.Tags.Add(tag)`) writes its join table too, where the model says which
(`join_tables`), a guess, `via="join_table"`, attrs `how`. Edges: attrs `resolution="inferred"`,
`via="type_argument"`, `entity` (the TYPE node), `member` (the method called), `carrier` (the
generic type or property) and, for a receiver reached through a property (`db.Orders`), `property`
(its PROPERTY node: the context member the access goes through). `SaveChanges` carries no
entity and is no table access of its own.
"""
from __future__ import annotations

import re

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, receiver_property, receiver_types, resolve_call
from ragstream.index.csharp.calls import TABLE_OF_TYPE
from ragstream.index.csharp.identity_stores import MANAGERS, IdentityTables, identity_accesses
from ragstream.index.csharp.join_tables import join_tables
from ragstream.index.csharp.orm_calls import orm_call
from ragstream.index.csharp.package_dbsets import dbset_tables, on_context, tables_by_short_name
from ragstream.index.graph_edits import add_edge
from ragstream.index.model import Reference, node_id
from ragstream.index.symbols import SymbolTable

T = TypeVar("T")

# Types whose every call runs a query on the entity's table.
QUERY_TYPES = frozenset({"DbSet", "IDbSet", "IQueryable", "IOrderedQueryable", "ITable", "Table",
                         "IMongoQueryable"})
# Generic types that hold or describe values in memory, or serve the framework: never a table.
NOT_DATA = frozenset({
    "IEnumerable", "ICollection", "IList", "List", "IReadOnlyList", "IReadOnlyCollection", "HashSet",
    "ISet", "IOrderedEnumerable", "Collection", "ObservableCollection", "IAsyncEnumerable",
    "Dictionary", "IDictionary", "IReadOnlyDictionary", "ConcurrentDictionary", "ConcurrentBag",
    "ConcurrentQueue", "Queue", "Stack", "LinkedList", "SortedList", "SortedSet", "SortedDictionary",
    "ReadOnlyCollection", "ImmutableArray", "ImmutableList", "ImmutableDictionary", "Span", "Memory",
    "ReadOnlySpan", "ArraySegment", "IEnumerator", "KeyValuePair", "Tuple", "ValueTuple", "Nullable",
    "Lazy", "Task", "ValueTask", "Func", "Action", "Predicate", "Expression", "IOptions",
    "IOptionsSnapshot", "IOptionsMonitor", "ILogger", "IEqualityComparer", "IComparer",
    "EqualityComparer", "Comparer", "IGrouping", "ILookup", "Lookup",
})
# The unit of work saved: what a method loaded from a query and changed is written then.
SAVES = frozenset({"SaveChanges", "SaveChangesAsync", "Flush", "FlushAsync", "Commit", "CommitAsync"})
WRITE_VERBS = ("Add", "Insert", "Update", "Remove", "Delete", "Attach", "Save", "Upsert", "Merge",
               "Create", "Persist", "ExecuteUpdate", "ExecuteDelete", "BulkInsert", "BulkUpdate",
               "BulkDelete")
NAVIGATION_CLEAR = "Clear"  # `repo.Users.Clear()`: a navigation's rows go (a cache's `Clear()` writes nothing)
READ_VERBS = ("Get", "List", "Find", "First", "Single", "Last", "Count", "LongCount", "Any", "All",
              "Where", "Query", "Select", "Search", "Exists", "Load", "Fetch", "Read", "Include",
              "OrderBy", "Sum", "Max", "Min", "Average", "Page", "AsQueryable", "AsNoTracking",
              "ToList", "ToArray", "Contains", "Filter")


@dataclass(frozen=True)
class _Carrier:
    generic: str  # the generic type (or generic method) as written, unqualified
    entities: list[list[str]]  # qualified guesses of each type argument
    query: bool  # a query type, or what a generic method returns (`Set<T>()`): every call counts
    declared_here: bool  # the generic type is declared in the repository
    passed: bool = False  # the entity is the call's argument (`session.Save(entry)`), not its receiver's
    navigation: bool = False  # passed to a mapped entity's collection (`order.Lines.Add(line)`): a guess
    property: str | None = None  # the PROPERTY the receiver was reached through (`db.Orders`), if any
    joins: tuple[tuple[str, str, str], ...] = ()  # a many-to-many navigation's join tables: (table, how, navigation)
    dbset: str | None = None  # a package context's DbSet the receiver is (`db.Clients`): its table by its name
    via: str = "type_argument"  # how the entity was found ("entity_argument": an ORM verb's argument)
    guess: bool = False  # an ORM call on a receiver of a type the index cannot see (`orm_calls`)


def link_data_access(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> Counter:
    """READS / WRITES from each C# call whose receiver carries an entity to the entity's tables;
    counts of the edges added, by type."""
    added: Counter = Counter()
    by_name = _tables_by_name(graph)
    refs = list(refs)
    saving = {ref.source for ref in refs if (ref.attrs.get("call") or {}).get("member") in SAVES}
    consumed = _consumed_tables_of_type(refs)
    names: dict[str, list[str]] = {}  # tables by short name, built at the first package DbSet
    tracked: list[tuple[str, str, dict]] = []
    identity: IdentityTables | None = None
    for ref in refs:
        call = ref.attrs.get("call")
        if call is None or ref.source not in graph:
            continue
        carrier = _orm_carrier(graph, symbols, ref) or _carrier(graph, symbols, call) \
            or _table_of_type_carrier(graph, ref, consumed) or _package_repository_carrier(graph, symbols, call)
        if carrier is not None and _identity_manager(symbols, carrier):
            identity = identity or IdentityTables(graph, by_name)  # Identity's stores: the tables the method names
            added += _identity_edges(graph, symbols, identity, carrier, ref)
            continue
        edge_type = _access(carrier, _verb(call)) if carrier is not None else None
        if carrier is None or edge_type is None or _repository_extension(graph, symbols, carrier, call):
            continue
        if carrier.dbset is not None:  # no entity known: the table EF's DbSet-name convention gives, a guess
            names = names or tables_by_short_name(graph)
            for table in dbset_tables(names, carrier.dbset):
                added[edge_type] += add_edge(graph, ref.source, table, edge_type, {
                    "line": ref.line, "resolution": "inferred", "via": "dbset_name", "guess": True,
                    "member": call["member"], "dbset": carrier.dbset})
            continue
        entities = _entities(graph, symbols, carrier)
        if call.get("navigation"):  # `.Include(o => o.Items)`: the navigation's entity is read too
            entities += _navigated(graph, symbols, entities, call["navigation"])
        projected = _projected(graph, symbols, entities, call) if edge_type == "READS" else []
        for entity in [*entities, *projected]:
            mapped = entity_tables(graph, entity)
            named = [] if mapped or carrier.passed else by_name.get(_short(graph, entity), [])
            for table in mapped or named:
                attrs = {"line": ref.line, "resolution": "inferred",
                         "via": "navigation" if carrier.navigation else carrier.via,
                         "entity": entity, "member": call["member"], "carrier": carrier.generic,
                         **({"property": carrier.property} if carrier.property else {}),
                         **({"state": call["state"]} if call.get("state") else {}),
                         **({"guess": True} if carrier.navigation or carrier.guess or entity in projected else {})}
                if named:
                    attrs.update(guess=True, table_by_name=True)  # no mapping: the table its name names
                    # and the entity maps to it (its properties to its columns), a guess as well
                    added["MAPS_TO"] += add_edge(graph, entity, table, "MAPS_TO", {
                        "line": graph.nodes[entity].get("start_line", 0), "resolution": "inferred",
                        "via": "table_by_name", "guess": True})
                elif not carrier.declared_here and not carrier.query:
                    attrs["guess"] = True  # a package's repository: its type argument and verb alone
                if add_edge(graph, ref.source, table, edge_type, attrs):
                    added[edge_type] += 1
                if edge_type == "READS" and _tracks(carrier, call["member"]) and (ref.source in saving or call.get("changed")):
                    tracked.append((ref.source, table, {**attrs, "via": "change_tracking", "guess": True}))
            if edge_type == "WRITES" and (mapped or named) and _writes_collections(call):  # the aggregate's collections
                for held, navigation in _held_collections(graph, symbols, entity):
                    for table in entity_tables(graph, held) or by_name.get(_short(graph, held), []):
                        added["WRITES"] += add_edge(graph, ref.source, table, "WRITES", {
                            "line": ref.line, "resolution": "inferred", "via": "aggregate", "guess": True,
                            "entity": held, "navigation": navigation, "member": call["member"]})
        for table, how, navigation in carrier.joins if edge_type == "WRITES" else ():  # `post.Tags.Add(tag)`
            added["WRITES"] += add_edge(graph, ref.source, table, "WRITES", {  # a row of the join table
                "line": ref.line, "resolution": "inferred", "via": "join_table", "guess": True, "how": how,
                "navigation": navigation, "member": call["member"]})
    # loaded, changed, saved: EF writes what it tracks (after every stated write, which wins)
    added["WRITES"] += sum(add_edge(graph, source, table, "WRITES", attrs) for source, table, attrs in tracked)
    added["WRITES"] += _forwarded_writes(graph, symbols, refs)
    added.update(_forwarded_type_arguments(graph, symbols, refs))
    return added


@dataclass(frozen=True)
class ParametricAccess:
    """A table access through a type parameter of the calling method's type
    (`_unitOfWork.Repository<TExtendedAttribute>().AddAsync(..)` in a generic handler): no table
    until a subclass binds the parameter (`base_bindings`)."""
    source: str  # the METHOD making the call
    owner: str  # its TYPE, whose type parameter the entity is
    parameter: str  # the type parameter as written
    edge_type: str  # READS or WRITES
    member: str  # the method called
    carrier: str  # the generic type (or generic method) as written
    line: int
    guess: bool  # a package's repository, known by its type argument and the verb alone


def type_parameter_accesses(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: Iterable[Reference]) -> list[ParametricAccess]:
    """Each call in a generic type's method whose receiver carries one of the type's own
    parameters as its entity, with the access its verb makes."""
    found = []
    for ref in refs:
        call = ref.attrs.get("call")
        owner = graph.nodes[ref.source].get("parent") if call is not None and ref.source in graph else None
        parameters = symbols.nodes[owner].attrs.get("type_parameters") if owner in symbols.nodes else None
        if call is None or not parameters:
            continue
        carrier = _carrier(graph, symbols, call)
        edge_type = _access(carrier, call["member"]) if carrier is not None else None
        if carrier is None or edge_type is None:
            continue
        for guesses in carrier.entities:
            written = guesses[-1] if guesses else ""
            if written in parameters and symbols.first("csharp", guesses, ("TYPE",)) is None:
                found.append(ParametricAccess(ref.source, str(owner), written, edge_type, call["member"],
                                              carrier.generic, ref.line, not carrier.declared_here and not carrier.query))
    return found


def _forwarded_writes(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference]) -> int:
    """`Repository.Add(entry)` where `Add(object entity)` runs `session.Persist(entity)`: a method
    that hands its first parameter, untyped (`object`, a type parameter), to an ORM's write verb
    writes whatever its callers pass; each call of it whose first argument is a mapped entity (as
    written, or what a call returned) writes that entity's tables, and the collections it holds.
    Edges: `via="forwarded"`, `member` (the ORM's verb), `forwarder` (the forwarding method,
    also when the call went through the interface or base member it implements)."""
    # method called -> (the ORM verb, the method that forwards)
    forwarding = {ref.source: (ref.attrs["call"]["member"], ref.source) for ref in refs
                  if _forwards_parameter(graph, symbols, ref)}
    if not forwarding:
        return 0
    _through_bases(graph, forwarding)
    added = 0
    for ref in refs:
        call = ref.attrs.get("call") or {}
        guesses = call.get("message") or (receiver_types(graph, symbols, call["argument"]) if call.get("argument") else [])
        entity = symbols.first("csharp", guesses, ("TYPE",)) if guesses else None
        if entity is None or ref.source not in graph or not entity_tables(graph, entity.id):
            continue
        for method in resolve_call(graph, symbols, call).methods if call.get("member") else ():
            if method not in forwarding:
                continue
            member, forwarder = forwarding[method]
            attrs = {"line": ref.line, "resolution": "inferred", "via": "forwarded", "entity": entity.id,
                     "member": member, "forwarder": forwarder}
            held = [table for other, _ in _held_collections(graph, symbols, entity.id) for table in entity_tables(graph, other)
                    ] if _writes_collections({"member": member}) else []
            added += sum(add_edge(graph, ref.source, table, "WRITES", attrs) for table in entity_tables(graph, entity.id))
            added += sum(add_edge(graph, ref.source, table, "WRITES", {**attrs, "via": "aggregate", "guess": True})
                         for table in held)
    return added


def _through_bases(graph: nx.MultiDiGraph, forwarding: dict[str, T]) -> None:
    """Add to `forwarding` (method -> what it forwards) the interface and base members of the
    same name that each method implements: the calls reach them (dispatch comes later)."""
    for method, found in list(forwarding.items()):
        name, owner = _short(graph, method), str(graph.nodes[method].get("parent"))
        for base in ancestors(graph, owner) if owner in graph else ():
            for _, declared, key in graph.out_edges(base, keys=True):
                if key == "DEFINES" and graph.nodes[declared].get("kind") == "METHOD" and _short(graph, declared) == name:
                    forwarding.setdefault(declared, found)


@dataclass(frozen=True)
class _TypeForwarding:
    """A generic method that hands its own type parameter to an ORM's typed call
    (`Get<TEntity>(object id) => session.Get<TEntity>(id)`)."""
    method: str  # the forwarding METHOD
    position: int  # which of its type parameters
    edge_type: str  # READS or WRITES, by the ORM's verb
    member: str  # the ORM's method
    carrier: str


def _forwarded_type_arguments(graph: nx.MultiDiGraph, symbols: SymbolTable, refs: list[Reference]) -> Counter:
    """`Repository.Get<Entry>(id)` where `Get<TEntity>(object id)` runs `session.Get<TEntity>(id)`
    (or `session.QueryOver<TEntity>()`): C# binds the method's type parameter to the call's type
    argument, so the call reads (writes) what the ORM's call would with it. Edges:
    `via="type_argument"`, `member` (the ORM's method), `forwarder` (the generic method, also
    when the call went through the interface or base member it implements)."""
    forwarding: dict[str, _TypeForwarding] = {}
    for ref in refs:
        call = ref.attrs.get("call") or {}
        own = (graph.nodes[ref.source].get("attrs") or {}).get("type_parameters") or [] if ref.source in graph else []
        arguments = call.get("type_arguments") or []
        if not own or len(arguments) != 1 or not arguments[0] or arguments[0][-1] not in own:
            continue
        orm = _orm_carrier(graph, symbols, ref)
        carrier = orm.generic if orm is not None and orm.via == "type_argument" else \
            call["member"] if call["member"] in TABLE_OF_TYPE else None
        if carrier is not None:  # an ORM's typed call, or its table of the type: the verb tells
            edge_type = "WRITES" if call["member"].startswith(WRITE_VERBS) else "READS"
            forwarding.setdefault(ref.source, _TypeForwarding(ref.source, own.index(arguments[0][-1]), edge_type,
                                                              call["member"], carrier))
    added: Counter = Counter()
    if not forwarding:
        return added
    _through_bases(graph, forwarding)
    for ref in refs:
        call = ref.attrs.get("call") or {}
        arguments = call.get("type_arguments") or []
        for method in resolve_call(graph, symbols, call).methods if arguments and ref.source in graph else ():
            found = forwarding.get(method)
            entity = symbols.first("csharp", arguments[found.position], ("TYPE",)) \
                if found is not None and found.position < len(arguments) else None
            if found is None or entity is None:
                continue
            for table in entity_tables(graph, entity.id):
                added[found.edge_type] += add_edge(graph, ref.source, table, found.edge_type, {
                    "line": ref.line, "resolution": "inferred", "via": "type_argument", "entity": entity.id,
                    "member": found.member, "carrier": found.carrier, "forwarder": found.method})
    return added


def _forwards_parameter(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference) -> bool:
    """An ORM write verb (a method the repository does not declare) called with the calling
    method's first parameter, whose type names no type of the repository (`object`, `T`)."""
    call = ref.attrs.get("call") or {}
    if [0, 0] not in call.get("forwards", ()) or not call.get("member", "").startswith(WRITE_VERBS) or ref.source not in graph:
        return False
    parameters = (graph.nodes[ref.source].get("attrs") or {}).get("parameters") or []
    written = parameters[0].split("<", 1)[0] if parameters else ""
    return bool(written) and not symbols.short("csharp", written, ("TYPE",)) and not resolve_call(graph, symbols, call).methods


def _carrier(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> _Carrier | None:
    """What the parser saw (a generic variable, a generic method's result), else the generic
    property the resolver reaches the receiver through (`db.Orders`), else the entity passed
    to a data verb of a persistence API outside the repository (`session.Save(entry)`)."""
    data = call.get("data")
    chained = bool(data and data.get("chained"))
    through = data["property"] if data and "property" in data else \
        call["receiver"] if data is None and "property" in call["receiver"] else None
    prop = receiver_property(graph, symbols, through) if through is not None else None
    if through is not None:
        data = _generic_value(graph, symbols, through) if prop is not None else None
    if (data is None or (chained and through is None)) and "call" in call["receiver"]:
        # `uow.Repository<Order>().Add(o)`: what the generic method returns, its parameters bound (on a
        # generic unit of work, `IUnitOfWork<TId> uow`, too: the chain's root is not the carrier)
        returned = _generic_value(graph, symbols, call["receiver"])
        data, chained = (returned, False) if returned is not None else (data, chained)
    if data is None and through is not None and prop is None and on_context(graph, symbols, through["property"]):
        # `DbContext.Clients.Add(c)`: a DbSet only a package's context declares (`package_dbsets`)
        return _Carrier("DbSet", [], query=True, declared_here=False, dbset=through["property"]["member"])
    if data is None:
        return None if chained else _argument_carrier(graph, symbols, call) or _inherited_carrier(graph, symbols, call)
    generic = (data.get("generic") or data.get("generic_call") or "").rsplit(".", 1)[-1]
    query = "generic_call" in data or generic in QUERY_TYPES
    if generic in NOT_DATA and prop is not None and not chained and _mapped(graph, prop.parent):
        # `role.Users.Add(user)`: a mapped entity's collection (a navigation) is written with what
        # is passed, when the entity is saved (for many-to-many, the join table): a guess. What is
        # passed is of the collection's type when the index cannot tell it (`foreach (var u in
        # found) repo.Users.Add(u)`); `repo.Users.Clear()` passes nothing and writes only the join
        # rows (the users stay)
        clearing = _verb(call) == NAVIGATION_CLEAR
        carrier = (None if clearing else _argument_carrier(graph, symbols, call)) or (
            _Carrier("argument", [] if clearing else data["entities"], query=True, declared_here=True, passed=True)
            if clearing or (data.get("entities") and _verb(call).startswith(WRITE_VERBS)) else None)
        return replace(carrier, generic="navigation", navigation=True,
                       joins=tuple((table, how, prop.name.rsplit(".", 1)[-1]) for table, how in join_tables(graph, symbols, prop.id))) \
            if carrier is not None else None
    if generic in NOT_DATA or (chained and not (query or data.get("inherited"))):
        return None  # a chain goes on from a query only: `repo.Get(id).Rename()` is the entity's
    return _Carrier(generic, data["entities"], query, bool(symbols.short("csharp", generic, ("TYPE",))),
                    property=prop.id if prop is not None else None)


def _generic_value(graph: nx.MultiDiGraph, symbols: SymbolTable, spec: dict, depth: int = 0) -> dict | None:
    """The generic a receiver spec evaluates to (`{"generic", "entities"}`), its type parameters
    bound: a property declared in the type's parameters (`IQueryable<T> Entities` of
    `IRepositoryAsync<T, TId>`) by the receiver's type arguments, and what a generic method
    returns (`IRepositoryAsync<TEntity, TId> Repository<TEntity>()`) by the call's type arguments
    and its receiver's. A parameter nothing binds keeps its name (no type: no table)."""
    if depth > 5:
        return None
    if "types" in spec:
        return {"generic": spec["types"][-1], "entities": spec["arguments"]} if spec.get("arguments") else None
    if "property" in spec:
        prop = receiver_property(graph, symbols, spec)
        declared = prop.attrs.get("generic") if prop is not None else None
        if declared is None:
            return None
        owner = _generic_value(graph, symbols, spec["property"]["receiver"], depth + 1) \
            if declared.get("parameters") else None
        return _bind(declared, [], (owner or {}).get("entities") or [])
    if "call" not in spec:
        return None
    inner = spec["call"]
    returned = [r for m in resolve_call(graph, symbols, inner).methods
                if (r := symbols.nodes[m].attrs.get("returns_generic"))]
    if not returned:
        return None
    owner = _generic_value(graph, symbols, inner["receiver"], depth + 1) or inner.get("data") or {}
    return _bind(returned[0], inner.get("type_arguments") or [], owner.get("entities") or [])


def _bind(declared: dict, method_arguments: list[list[str]], type_arguments: list[list[str]]) -> dict:
    """A declared generic with each type parameter replaced by what binds it, where known."""
    given = {"method": method_arguments, "type": type_arguments}
    entities = [given[p[0]][p[1]] if p and p[1] < len(given[p[0]]) else written
                for written, p in zip(declared["entities"], declared.get("parameters") or [None] * len(declared["entities"]))]
    return {"generic": declared["generic"], "entities": entities}


def _table_key(source: str, generic: str, entities: list[list[str]]) -> tuple[str, str, str]:
    return source, generic, repr(entities)


def _consumed_tables_of_type(refs: list[Reference]) -> set[tuple[str, str, str]]:
    """(method, ORM table method, type arguments) of each `Set<T>()` / `Query<T>()` another call
    of the method is chained on (`db.Set<Order>().Add(o)`): that call says how the table is used."""
    return {_table_key(ref.source, data["generic_call"], data["entities"]) for ref in refs
            if (data := (ref.attrs.get("call") or {}).get("data")) and "generic_call" in data}


def _orm_carrier(graph: nx.MultiDiGraph, symbols: SymbolTable, ref: Reference) -> _Carrier | None:
    """A typed micro-ORM or session call (`Db.SingleById<Post>(id)`, `Db.Insert(post)`; `orm_calls`):
    the ORM's method carries the entity, and its verb says read or write."""
    path = graph.nodes[ref.source].get("path")
    file = graph.nodes.get(node_id("csharp", path, "FILE")) if path else None
    usings = set((file or {}).get("attrs", {}).get("usings") or ())
    found = orm_call(graph, symbols, ref.attrs["call"], usings) if usings else None
    if found is None:
        return None
    return _Carrier(f"{found.api}.{ref.attrs['call']['member']}", found.entities, query=True, declared_here=True,
                    passed=found.via == "entity_argument", via=found.via, guess=found.guess)


# What a data-access type of a package is named (`IRepository`, `IUnitOfWork`, `Repository` of a base class)
PACKAGE_REPOSITORIES = ("Repository", "UnitOfWork")


def _package_repository_carrier(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> _Carrier | None:
    """`repository.AsQueryable<BlogPost>()`, `Repository.First<Author>(id)`: a generic data verb of a
    repository no code of the repository declares (a package's non-generic `IRepository` whose methods
    take the entity as their type argument); only the method's name and its type argument say it, so a
    guess. A repository the code declares is read from its body instead."""
    arguments = call.get("type_arguments") or []
    # the call's own shape first: this runs for every call no other carrier took
    if len(arguments) != 1 or not call["member"].removesuffix("Async").startswith((*READ_VERBS, *WRITE_VERBS)) \
            or "unknown" in call["receiver"]:
        return None
    guesses = receiver_types(graph, symbols, call["receiver"])
    names = {guess.split("<", 1)[0].rsplit(".", 1)[-1] for guess in guesses}
    if not any(name.endswith(PACKAGE_REPOSITORIES) for name in names) \
            or symbols.first("csharp", guesses, ("TYPE",)) is not None or resolve_call(graph, symbols, call).methods:
        return None
    return _Carrier(f"{sorted(names)[0]}.{call['member']}", arguments, query=False, declared_here=False, guess=True)


def _table_of_type_carrier(graph: nx.MultiDiGraph, ref: Reference,
                           consumed: set[tuple[str, str, str]]) -> _Carrier | None:
    """`return session.Query<Setting>();`: a method handing out an ORM's table of its type
    argument (`TABLE_OF_TYPE`, no arguments), no call of its own chained on it, reads that table
    (its caller runs the query); chained on, the chained call tells (a write, or a read)."""
    call = ref.attrs["call"]
    arguments = call.get("type_arguments") or []
    if call.get("member") not in TABLE_OF_TYPE or call.get("arguments") or len(arguments) != 1 \
            or graph.nodes[ref.source].get("kind") != "METHOD" \
            or _table_key(ref.source, call["member"], arguments) in consumed:
        return None
    return _Carrier(call["member"], arguments, query=True, declared_here=True)


def _mapped(graph: nx.MultiDiGraph, type_id: str | None) -> bool:
    """The type maps to a table (an entity)."""
    return type_id in graph and any(key == "MAPS_TO" for _, _, key in graph.out_edges(type_id, keys=True))


def _argument_carrier(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> _Carrier | None:
    """`context.Remove(order)`, `session.SaveOrUpdate(entry)`: a write verb whose method the
    repository does not declare (an ORM's session or context), passed a mapped entity. A method
    the repository declares (`orders.Add(order)` on its own repository) does its access in its body."""
    if not _verb(call).startswith(WRITE_VERBS) or not (call.get("message") or call.get("argument")) \
            or resolve_call(graph, symbols, call).methods:
        return None  # passing an entity to a read (`GetFilters(job)`) says nothing of its table
    # the argument typed as written, else by the resolver (`foreach (var s in settings) session.Save(s)`)
    passed = call.get("message") or receiver_types(graph, symbols, call["argument"])
    return _Carrier("argument", [list(passed)], query=True, declared_here=True, passed=True) if passed else None


def _inherited_carrier(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> _Carrier | None:
    """`_reviews.Query()` on an `IReviewRepository : IRepository<Review>`: a member the receiver's
    type inherits from a generic base carries that base's entity type argument (its own members
    do their access in their bodies). Only a receiver type with one generic base: with several,
    which one declares the member is not told here; a member another base declares carries nothing."""
    resolution = resolve_call(graph, symbols, call) if "types" in call.get("receiver", {}) else None
    if resolution is None or resolution.receiver_type is None or not resolution.methods:
        return None
    bases = graph.nodes[resolution.receiver_type].get("attrs", {}).get("generic_bases") or []
    if len(bases) != 1:
        return None
    base = bases[0]["name"].rsplit(".", 1)[-1]
    declared = [node.id for node in symbols.short("csharp", base, ("TYPE",))]
    owner = graph.nodes[resolution.methods[0]].get("parent")
    if declared and not any(owner == node or owner in ancestors(graph, node) for node in declared):
        return None  # a member of another base (`IAuditLog.GetAuditTrail`) carries no entity
    return _Carrier(base, bases[0]["arguments"], query=False, declared_here=bool(declared))


# The read verbs that hand back the entities themselves, which the unit of work then tracks (not
# `Count`, `Any`, `AsNoTracking`): `repository.Query().FirstOrDefaultAsync(...)`, `GetByIdAsync(id)`.
TRACKED_READS = ("Get", "Find", "First", "Single", "Last", "Query", "Load", "Fetch", "Where", "Include", "List",
                 "ToList", "ToArray")


# What a read verb is about when it hands back no entity: `GetCountAsync`, `FindAnyAsync`, `ListIdsAsync`.
_SCALAR_READ = re.compile(r"(?:Count|Any|Exists|Sum|Min|Max|Average|Ids?)(?:Async)?$|^AsNoTracking")


def _tracks(carrier: _Carrier, member: str) -> bool:
    """What the call reads is tracked by the unit of work: any call on a query type, or a
    repository's read verb that returns entities (not a count, a test or an id)."""
    return carrier.query or (member.startswith(TRACKED_READS) and not _SCALAR_READ.search(member))


# EF's entity states that write, as the verbs that do the same: `db.Entry(user).State =
# EntityState.Modified` updates the user's row at the next save, as `db.Update(user)` would.
STATE_VERBS = {"Added": "Add", "Modified": "Update", "Deleted": "Remove"}


def _repository_extension(graph: nx.MultiDiGraph, symbols: SymbolTable, carrier: _Carrier, call: dict) -> bool:
    """Whether a call on a generic type that is no query (`process.AddError("...")` on an
    `IPipelineProcess<Topic>`) runs an extension method the repository declares: C# binds it to
    that static method, the receiver only its first argument ("Extension methods are static
    methods, but they're called as if they were instance methods", C# programming guide), so its
    name is no verb of the receiver's entity; what its body does is linked from its body."""
    if carrier.query or carrier.passed or carrier.navigation:
        return False
    resolution = resolve_call(graph, symbols, call)
    return resolution.via == "extension" and bool(resolution.methods)


# Verbs that leave the entity's collections unwritten: EF's `Attach` tracks the entities reachable from
# it as Unchanged (the code that changes a collection adds to it, `order.Lines.Add(line)`: a `navigation`
# edge), and setting an entry's state "affects only that entity"
# (https://learn.microsoft.com/ef/core/change-tracking/explicit-tracking). `Update` is not one: it tracks
# every reachable entity as Modified (Added when its key is unset), so it writes the collections, as `Add`
# inserts the new entities it reaches and `Remove` cascades to dependents.
ENTITY_ONLY = ("Attach",)


def _writes_collections(call: dict) -> bool:
    """Whether a write call writes the collections its entity holds (`via="aggregate"`, a guess)."""
    return not call.get("state") and not call["member"].startswith(ENTITY_ONLY)


def _identity_manager(symbols: SymbolTable, carrier: _Carrier) -> bool:
    """`UserManager<AppUser>`: Identity's manager, unless the repository declares a generic type of
    that name (C# tells types apart by their number of type parameters: BlazorHero's own client-side
    `UserManager` takes none)."""
    return carrier.generic in MANAGERS and not any(
        node.attrs.get("type_parameters") for node in symbols.short("csharp", carrier.generic, ("TYPE",)))


def _identity_edges(graph: nx.MultiDiGraph, symbols: SymbolTable, identity: IdentityTables, carrier: _Carrier,
                    ref: Reference) -> Counter:
    """READS / WRITES of an ASP.NET Core Identity manager's call (`_userManager.AddToRoleAsync(user, ..)`):
    the store tables `identity_stores.IDENTITY_VERBS` says, `via="identity_store"`, attrs `store` (the
    part); a table found by Identity's set name only is a guess."""
    call = ref.attrs["call"]
    own = MANAGERS[carrier.generic]
    mapped = [table for entity in _entities(graph, symbols, carrier) for table in entity_tables(graph, entity)]
    added: Counter = Counter()
    for edge_type, part in identity_accesses(carrier.generic, call["member"]):
        tables, guessed = identity.tables(part, own, mapped)
        for table in tables:
            added[edge_type] += add_edge(graph, ref.source, table, edge_type, {
                "line": ref.line, "resolution": "inferred", "via": "identity_store", "store": part,
                "member": call["member"], "carrier": carrier.generic, **({"guess": True} if guessed else {})})
    return added


def _verb(call: dict) -> str:
    """The data verb of a call: its method's name, or the write the entity state it sets stands
    for (`calls.WRITTEN_STATES`; the edge keeps `member="Entry"` and says the `state`)."""
    return STATE_VERBS.get(call.get("state", ""), call["member"])


def _access(carrier: _Carrier, member: str) -> str | None:
    """WRITES, READS or None (the call touches no table) by the method's verb."""
    if member.startswith(WRITE_VERBS) or (carrier.navigation and member == NAVIGATION_CLEAR):
        return "WRITES"
    if carrier.query or member.startswith(READ_VERBS):
        return "READS"
    return None


def _entities(graph: nx.MultiDiGraph, symbols: SymbolTable, carrier: _Carrier) -> list[str]:
    """The TYPE node of each type argument that the repository declares, else the EXTERNAL node
    of a package's entity that a context of the repository maps (`DbSet<ClientSecret>` of
    IdentityServer4's `ClientSecret`: EF maps a DbSet's type whatever assembly declares it)."""
    found = []
    for guesses in carrier.entities:
        node = symbols.first("csharp", guesses, ("TYPE",))
        if node is not None:
            found.append(node.id)
            continue
        # only to a table of the repository's schema: an entity outside the index maps to a name only
        mapped = [e for g in reversed(guesses) if (e := node_id("csharp", g, "EXTERNAL")) in graph
                  and any(graph.nodes[t].get("kind") in ("TABLE", "VIEW") for t in entity_tables(graph, e))]
        found += mapped[:1]
    return found


# Collections an entity holds other entities in: EF adds, updates and (by cascade) deletes them with it.
HELD_COLLECTIONS = frozenset({"ICollection", "IList", "List", "IReadOnlyList", "IReadOnlyCollection", "IEnumerable",
                              "HashSet", "ISet", "Collection"})


def _held_collections(graph: nx.MultiDiGraph, symbols: SymbolTable, entity: str) -> list[tuple[str, str]]:
    """(TYPE id, property name) of each entity the type holds in a collection property
    (`ICollection<OrderItem> Items`): EF writes those rows with their owner (a new order's items,
    an aggregate's changed children, a cascade delete)."""
    found = []
    for _, prop, key in graph.out_edges(entity, keys=True):
        generic = graph.nodes[prop].get("attrs", {}).get("generic") or {}
        if key != "DEFINES" or generic.get("generic") not in HELD_COLLECTIONS or len(generic.get("entities", [])) != 1:
            continue
        held = symbols.first("csharp", generic["entities"][0], ("TYPE",))
        if held is not None and held.id != entity:
            found.append((held.id, graph.nodes[prop]["name"].rsplit(".", 1)[-1]))
    return sorted(found)


def _navigated(graph: nx.MultiDiGraph, symbols: SymbolTable, entities: list[str], navigation: str) -> list[str]:
    """The entity types a navigation property of `entities` holds (`Order.Items`: `OrderItem`)."""
    found = []
    for entity in entities:
        prop = symbols.find("csharp", f"{graph.nodes[entity]['name']}.{navigation}", ("PROPERTY",))
        if prop is None:
            continue
        generic = prop.attrs.get("generic") or {}
        guesses = [g for arguments in generic.get("entities", []) for g in arguments] or prop.attrs.get("returns", [])
        target = symbols.first("csharp", guesses, ("TYPE",))
        if target is not None and target.id not in entities:
            found.append(target.id)
    return found


# Object mappers' projections of a query into a type (AutoMapper, Mapster): the SQL selects what it holds.
PROJECTIONS = frozenset({"ProjectTo", "ProjectToType"})


def _projected(graph: nx.MultiDiGraph, symbols: SymbolTable, entities: list[str], call: dict) -> list[str]:
    """`.ProjectTo<Model>(config)` over a query of `Student`: the entities reached through the
    navigations the projection's type names by the mapper's conventions (`Model.Enrollments`,
    flattened `Model.EnrollmentsCount`: `Student.Enrollments`), which the generated SQL joins and
    so reads; a guess (a profile may map them otherwise)."""
    if call.get("member") not in PROJECTIONS or len(call.get("type_arguments") or []) != 1:
        return []
    target = symbols.first("csharp", call["type_arguments"][0], ("TYPE",))
    if target is None or target.id not in graph:
        return []
    wanted = [graph.nodes[p]["name"].rsplit(".", 1)[-1] for _, p, key in graph.out_edges(target.id, keys=True)
              if key == "DEFINES" and graph.nodes[p].get("kind") == "PROPERTY"]
    found: list[str] = []
    for entity in entities:
        navigations = {graph.nodes[p]["name"].rsplit(".", 1)[-1] for _, p, key in graph.out_edges(entity, keys=True)
                       if key == "DEFINES" and graph.nodes[p].get("kind") == "PROPERTY"}
        for navigation in sorted(n for n in navigations if any(_flattens(w, n) for w in wanted)):
            found += [e for e in _navigated(graph, symbols, [entity], navigation)
                      if e not in entities and e not in found and entity_tables(graph, e)]
    return found


def _flattens(destination: str, source: str) -> bool:
    """AutoMapper's naming convention: `Enrollments` fills `Enrollments` and flattens into
    `EnrollmentsCount`, `CustomerName` (the source's name, then a capitalised word)."""
    return destination == source or (destination.startswith(source) and destination[len(source):][:1].isupper())


def _short(graph: nx.MultiDiGraph, node: str) -> str:
    return graph.nodes[node].get("name", "").rsplit(".", 1)[-1].lower()


def _tables_by_name(graph: nx.MultiDiGraph) -> dict[str, list[str]]:
    """Entity name -> the tables named after it, for an entity no mapping maps: the table's name
    without its schema, and without a prefix up to `_` (`Catalog_Product`, `tbl_Order`), is the
    entity's name or its plural (`Orders`, `Categories`). One table, or none: several are no
    answer."""
    found: dict[str, set[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") != "TABLE":
            continue
        name = data.get("name", "").rsplit(".", 1)[-1].lower()
        for base in {name, name.rsplit("_", 1)[-1]}:
            for singular in _singulars(base):
                found.setdefault(singular, set()).add(node)
    return {entity: sorted(tables) for entity, tables in found.items() if len(tables) == 1}


def _singulars(name: str) -> set[str]:
    """The name and what it is the plural of, by English's regular plurals."""
    forms = {name}
    if name.endswith("ies"):
        forms.add(name[:-3] + "y")
    if name.endswith(("ses", "xes", "shes", "ches")):
        forms.add(name[:-2])
    if name.endswith("s") and not name.endswith("ss"):
        forms.add(name[:-1])
    return forms


def entity_tables(graph: nx.MultiDiGraph, entity: str) -> list[str]:
    """The tables (or views, or EXTERNAL names) the entity maps to; not those a Dapper row type
    is read from, which are the query's, not the type's."""
    return sorted(target for _, target, key, attrs in graph.out_edges(entity, keys=True, data=True)
                  if key == "MAPS_TO" and attrs.get("via") != "dapper_row_type"
                  and graph.nodes[target].get("kind") in ("TABLE", "VIEW", "EXTERNAL"))
