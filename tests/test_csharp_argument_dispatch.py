"""C# calls bound by their arguments (`call_resolution._overloads`, `call_resolution.argument_binding`,
`relations.table_paths`): an overload chosen by the type of the object passed, and a call made on
a parameter (`query.Execute(...)` in `Find(IQuery<T> query)`) followed, along a walk, only to the
implementation of the argument a caller passed; with the edges they must not make."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.relations import table_paths
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.Entry (Id INT PRIMARY KEY, Name NVARCHAR(50));
CREATE TABLE dbo.Spam (Id INT PRIMARY KEY);
CREATE TABLE dbo.Comment (Id INT PRIMARY KEY);
"""

QUERIES = """
using System.Data;
using Dapper;
namespace Blog.Data;
public class Entry { } public class Comment { }
public interface IQuery<TResult> { IEnumerable<TResult> Execute(IDbConnection connection); }
public interface IPagedQuery<TResult> { IEnumerable<TResult> Execute(IDbConnection connection, int skip, int take); }
public class EntryByNameQuery : IQuery<Entry>
{
    private readonly string _name;
    public EntryByNameQuery(string name) { _name = name; }
    public IEnumerable<Entry> Execute(IDbConnection connection) =>
        connection.Query<Entry>("SELECT * FROM dbo.Entry WHERE Name = @name", new { name = _name });
}
public class GetSpamQuery : IQuery<Comment>
{
    public IEnumerable<Comment> Execute(IDbConnection connection) =>
        connection.Query<Comment>("SELECT * FROM dbo.Spam");
}
public class GetCommentsQuery : IPagedQuery<Comment>
{
    public IEnumerable<Comment> Execute(IDbConnection connection, int skip, int take) =>
        connection.Query<Comment>("SELECT * FROM dbo.Comment");
}
public class Repository
{
    private readonly IDbConnection _connection;
    public IEnumerable<T> Find<T>(IQuery<T> query) { return query.Execute(_connection); }
    public T FindFirst<T>(IQuery<T> query) { return Find(query).First(); }
    public T FindFirst<T>(IPagedQuery<T> query) { return query.Execute(_connection, 0, 1).First(); }
}
"""

CONTROLLER = """
namespace Blog.Web;
using Blog.Data;
public class EntriesController
{
    private readonly Repository _repository;
    public bool Exists(string name) => _repository.FindFirst(new EntryByNameQuery(name)) != null;
    public bool ExistsTyped(string name)
    {
        var query = new EntryByNameQuery(name);
        return _repository.FindFirst(query) != null;
    }
    public object Spam() => _repository.Find(new GetSpamQuery());
    public object Any(IQuery<Entry> query) => _repository.Find(query);
    public object Two(string name) { _repository.FindFirst(new EntryByNameQuery(name)); return _repository.Find(new GetSpamQuery()); }
    public object Both(string name) { _repository.Find(new EntryByNameQuery(name)); return _repository.Find(new GetSpamQuery()); }
}
"""


def build() -> nx.MultiDiGraph:
    files = [parse_csharp("Queries.cs", QUERIES), parse_csharp("Controller.cs", CONTROLLER),
             parse_sql("db/schema.sql", SCHEMA, "tsql")]
    graph, _ = build_graph(files)
    return graph


def calls(graph: nx.MultiDiGraph, method: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in graph.out_edges(f"cs:{method}|METHOD", keys=True, data=True)
            if key == "CALLS"}


FIRST_QUERY = "cs:Blog.Data.Repository.FindFirst(IQuery<T>)|METHOD"
FIRST_PAGED = "cs:Blog.Data.Repository.FindFirst(IPagedQuery<T>)|METHOD"


def test_an_overload_is_chosen_by_the_type_of_the_object_passed():
    graph = build()
    for caller in ("Blog.Web.EntriesController.Exists", "Blog.Web.EntriesController.ExistsTyped"):
        called = calls(graph, caller)
        assert FIRST_QUERY in called and called[FIRST_QUERY]["overload"] == "argument_types"
        assert FIRST_PAGED not in called  # an `EntryByNameQuery` is no `IPagedQuery<T>`
        assert called[FIRST_QUERY]["argument_types"] == [["cs:Blog.Data.EntryByNameQuery|TYPE"]]


def test_a_call_made_on_a_parameter_says_so_and_a_forwarding_call_says_what_it_forwards():
    graph = build()
    executed = calls(graph, "Blog.Data.Repository.Find")
    assert executed["cs:Blog.Data.IQuery.Execute|METHOD"]["receiver_parameter"] == 0
    dispatched = executed["cs:Blog.Data.GetSpamQuery.Execute|METHOD"]
    assert dispatched["resolution"] == "dispatch" and dispatched["receiver_parameter"] == 0
    assert calls(graph, "Blog.Data.Repository.FindFirst(IQuery<T>)")["cs:Blog.Data.Repository.Find|METHOD"][
        "forwards"] == [[0, 0]]


def tables_reached(graph: nx.MultiDiGraph, entry: str) -> set[str]:
    return {path.nodes[-1] for path in table_paths(graph, [f"cs:Blog.Web.EntriesController.{entry}|METHOD"])}


def test_a_walk_follows_a_dispatch_on_a_parameter_only_to_the_argument_passed_down_to_it():
    graph = build()
    # through FindFirst(IQuery) -> Find(IQuery) -> query.Execute: the entry query's table only
    assert tables_reached(graph, "Exists") == {"sql:dbo.Entry|TABLE"}
    assert not any("cs:Blog.Data.GetSpamQuery.Execute|METHOD" in path.nodes
                   for path in table_paths(graph, ["cs:Blog.Web.EntriesController.Exists|METHOD"]))
    # `Find` reached with the spam query, then (through `FindFirst`) with the entry query: walked for each
    assert tables_reached(graph, "Two") == {"sql:dbo.Entry|TABLE", "sql:dbo.Spam|TABLE"}
    # one edge for two calls passing different queries: what either passes may run
    assert tables_reached(graph, "Both") == {"sql:dbo.Entry|TABLE", "sql:dbo.Spam|TABLE"}
    assert tables_reached(graph, "ExistsTyped") == {"sql:dbo.Entry|TABLE"}
    assert tables_reached(graph, "Spam") == {"sql:dbo.Spam|TABLE"}
    # an argument only known as the interface binds nothing: every implementation may run
    assert tables_reached(graph, "Any") == {"sql:dbo.Entry|TABLE", "sql:dbo.Spam|TABLE"}
    # the graph keeps every implementation for other uses (callers of GetSpamQuery.Execute)
    assert "cs:Blog.Data.GetSpamQuery.Execute|METHOD" in calls(graph, "Blog.Data.Repository.Find")


MODEL = """
namespace Blog.Data;
public class Revision { public Lazy<Post> Post { get; set; } public void Approve() { } }
public class Post { public void Approve() { } public void Reply() { } }
public class RevisionByNameQuery : IQuery<Revision>
{
    public IEnumerable<Revision> Execute(IDbConnection connection) => null;
}
public class Moderation
{
    private readonly Repository _repository;
    public void Approve(string name) { var revision = _repository.FindFirst(new RevisionByNameQuery(name)); revision.Approve(); }
    public void Reply(string name) { var revision = _repository.FindFirst(new RevisionByNameQuery(name)); revision.Post.Value.Reply(); }
}
"""


def test_a_generic_method_returns_what_its_argument_binds_and_a_wrapper_s_value_its_type_argument():
    """`FindFirst<T>(IQuery<T> query)` called with a `RevisionByNameQuery : IQuery<Revision>` returns
    a `Revision` (C#'s inference from the argument); `Lazy<Post>.Value` is a `Post` (a guess)."""
    files = [parse_csharp("Queries.cs", QUERIES), parse_csharp("Model.cs", MODEL)]
    graph, _ = build_graph(files)
    approved = calls(graph, "Blog.Data.Moderation.Approve")
    assert approved["cs:Blog.Data.Revision.Approve|METHOD"]["resolution"] == "inferred"
    assert "cs:Blog.Data.Post.Approve|METHOD" not in approved
    replied = calls(graph, "Blog.Data.Moderation.Reply")["cs:Blog.Data.Post.Reply|METHOD"]
    assert replied["via"] == "type_argument" and replied["guess"] is True
