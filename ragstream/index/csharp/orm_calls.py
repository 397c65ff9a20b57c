"""Typed calls of micro-ORMs and ORM sessions: the entity is the generic method's type argument.

`Db.SingleById<Post>(id)` (ServiceStack OrmLite), `conn.Get<Order>(id)` (Dapper.Contrib),
`session.Load<TaskState>(id)` (NHibernate), `db.Fetch<Order>(..)` (NPoco / PetaPoco): the receiver
is a connection or session that carries no entity, the method's own type argument is the table's
entity; the write APIs infer it, as C# infers a generic method's type argument, from the argument
(`Db.Insert(post)`, `session.SaveOrUpdate(entry)`, `Db.Insert(ToNotification(..))`: what the call returns) or from the object a lambda argument creates
(`Db.UpdateOnly(() => new Post { Deleted = true }, where: ..)`, an `Expression<Func<T>>`).
OrmLite's query builder `Db.From<Choice>().Join<Technology>()` reads each table it names.

Which calls are such: the file imports the ORM's namespace (its methods are extension methods
on `IDbConnection`, or members of its session types: neither binds without the `using`), the
method's name is one of the ORM's documented verbs (`ORM_APIS`, which also say read or write),
the repository declares no method the call resolves to, and the receiver is a data-access object:
typed as a connection, session or database (`DATA_RECEIVERS`, or a type of the repository derived
from one), chained on the query builder, or of a type the index cannot see (`Db`, a property of
ServiceStack's `Service` base: the edge is then a guess). A receiver of any other known type
(`cache.Get<Post>(key)` on an `ICacheClient`, `list.Insert(0, post)`) makes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ragstream.index.csharp.call_resolution import ancestors, argument_type_ids, receiver_types, resolve_call
from ragstream.index.symbols import SymbolTable


@dataclass(frozen=True)
class OrmApi:
    """One ORM's typed data verbs (without `Async`), by the namespace that brings them in scope."""

    namespace: str
    reads: frozenset[str]
    writes: frozenset[str]


# The documented generic verbs. `Query<T>()`, `QueryOver<T>()`, `GetTable<T>()` hand out a table
# (`calls.TABLE_OF_TYPE`, linked where it is used); `Column<T>`, `Scalar<T>`, `Dictionary<K, V>`
# are typed by the result's values, not by an entity, and are no verb here.
ORM_APIS: tuple[OrmApi, ...] = (
    OrmApi("ServiceStack.OrmLite",
           reads=frozenset({"Select", "SelectByIds", "SelectNonDefaults", "Single", "SingleById", "SingleWhere",
                            "Exists", "Count", "RowCount", "LoadSelect", "LoadSingleById", "Where", "From",
                            "Join", "LeftJoin", "RightJoin", "FullJoin", "CrossJoin"}),
           writes=frozenset({"Insert", "InsertAll", "InsertOnly", "Save", "SaveAll", "Update", "UpdateAll",
                             "UpdateOnly", "UpdateOnlyFields", "UpdateAdd", "UpdateNonDefaults", "Delete",
                             "DeleteAll", "DeleteById", "DeleteByIds", "DeleteNonDefaults"})),
    OrmApi("Dapper.Contrib.Extensions",
           reads=frozenset({"Get", "GetAll"}),
           writes=frozenset({"Insert", "Update", "Delete", "DeleteAll"})),
    OrmApi("NHibernate",
           reads=frozenset({"Get", "Load"}),
           writes=frozenset({"Save", "SaveOrUpdate", "Update", "Delete", "Persist", "Merge"})),
    OrmApi("NPoco",
           reads=frozenset({"Fetch", "Page", "SkipTake", "Single", "SingleOrDefault", "SingleById",
                            "SingleOrDefaultById", "First", "FirstOrDefault", "Exists"}),
           writes=frozenset({"Insert", "Update", "Delete", "Save", "InsertBulk"})),
    OrmApi("PetaPoco",
           reads=frozenset({"Fetch", "Page", "SkipTake", "Single", "SingleOrDefault", "First", "FirstOrDefault",
                            "Exists"}),
           writes=frozenset({"Insert", "Update", "Delete", "Save"})),
    OrmApi("LinqToDB",
           reads=frozenset(),
           writes=frozenset({"Insert", "InsertWithIdentity", "InsertOrReplace", "Update", "Delete"})),
)

# OrmLite's `SqlExpression<T>` builder: a call chained on one of these is on the query builder.
QUERY_BUILDER = frozenset({"From", "Join", "LeftJoin", "RightJoin", "FullJoin", "CrossJoin", "Where", "And", "Or"})

# Types a data-access call is made on: ADO.NET connections (OrmLite's and Dapper's extensions),
# ORM sessions and databases, OrmLite's query builder.
DATA_RECEIVERS = frozenset({
    "IDbConnection", "DbConnection", "SqlConnection", "NpgsqlConnection", "SqliteConnection", "MySqlConnection",
    "OracleConnection", "IDbTransaction", "ISession", "IStatelessSession", "IDatabase", "Database",
    "DataConnection", "IDataContext", "DataContext", "SqlExpression",
})


@dataclass(frozen=True)
class OrmCall:
    """A typed ORM call: the entity guesses, how the entity was found, whether it is a guess."""

    api: str  # the ORM's namespace
    entities: list[list[str]]  # qualified guesses of each entity
    via: str  # "type_argument" or "entity_argument"
    guess: bool  # the receiver's type is unknown to the index


def orm_call(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict, usings: set[str]) -> OrmCall | None:
    """The ORM call `call` is, in a file importing `usings`; None for any other call."""
    verb = call["member"].removesuffix("Async")
    api = next((a for a in ORM_APIS if verb in a.reads | a.writes and _imports(usings, a.namespace)), None)
    if api is None or resolve_call(graph, symbols, call).methods:
        return None  # a method the repository declares does its access in its body
    kind = _receiver_kind(graph, symbols, call)
    if kind == "other":
        return None
    if call.get("type_arguments"):
        return OrmCall(api.namespace, list(call["type_arguments"]), "type_argument", kind == "unknown")
    if verb not in api.writes:
        return None
    passed = call.get("creates") or call.get("message") or \
        [symbols.nodes[ids[0]].name for ids in argument_type_ids(graph, symbols, call)[:1] if ids]
    return OrmCall(api.namespace, [list(passed)], "entity_argument", kind == "unknown") if passed else None


def _imports(usings: set[str], namespace: str) -> bool:
    return any(u == namespace or u.startswith(namespace + ".") for u in usings)


def _receiver_kind(graph: nx.MultiDiGraph, symbols: SymbolTable, call: dict) -> str:
    """"data" (a data-access type, or chained on the query builder), "unknown" (no type the index
    can tell: a bare name no variable and no type of the repository is, a base's member) or
    "other" (a type that is no data access: a cache, a list)."""
    receiver = call["receiver"]
    inner = receiver.get("call")
    if inner is not None and inner.get("member") in QUERY_BUILDER:
        return "data"  # `Db.From<A>().Join<B>()`: on OrmLite's query builder
    guesses = [] if "unknown" in receiver else receiver_types(graph, symbols, receiver)
    declared = symbols.first("csharp", guesses, ("TYPE",)) if guesses else None
    if not guesses or (call.get("named_receiver") and declared is None):
        return "unknown"
    names = {guess.split("<", 1)[0].rsplit(".", 1)[-1] for guess in guesses}
    if declared is not None and declared.id in graph:
        names |= {graph.nodes[base].get("name", "").split("<", 1)[0].rsplit(".", 1)[-1]
                  for base in ancestors(graph, declared.id)}
    return "data" if names & DATA_RECEIVERS else "other"
