"""An extension method called on a receiver no type is known for (`db.Clients.WhereIf(...)` on a
package's DbSet), when several static classes declare one of that name: the one in the caller's
namespace or an enclosing one, innermost first, else in a namespace the caller's file imports (C#'s
lookup order), and none when neither tells (`index/graph_build._resolve_by_name`)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

HELPERS = {
    "A/QueryableExtensions.cs": """
namespace App.Data.Extensions
{
    public static class QueryableExtensions
    {
        public static IQueryable<T> WhereIf<T>(this IQueryable<T> query, bool condition, Expression<Func<T, bool>> p) => query;
    }
}
""",
    "B/QueryableExtensions.cs": """
namespace App.Logic.Helpers
{
    public static class QueryableExtensions
    {
        public static IQueryable<T> WhereIf<T>(this IQueryable<T> query, bool condition, Expression<Func<T, bool>> p) => query;
    }
}
""",
}

CALLERS = {
    "Repo.cs": """
using App.Data.Extensions;
namespace App.Data.Repositories
{
    public class ClientRepository
    {
        private readonly ShopContext _db;
        public object Find(string s) { return _db.Clients.WhereIf(s != null, x => true).ToList(); }
    }
}
""",
    "Other.cs": """
namespace App.Web
{
    public class Finder
    {
        private readonly ShopContext _db;
        public object Find(string s) { return _db.Clients.WhereIf(s != null, x => true).ToList(); }
    }
}
""",
}


def calls(graph: nx.MultiDiGraph, method: str) -> set[str]:
    return {target for _, target, key in graph.out_edges(f"cs:{method}|METHOD", keys=True) if key == "CALLS"}


def test_the_extension_of_the_imported_namespace_is_the_one_called_and_none_when_nothing_imports_one():
    graph, _ = build_graph([parse_csharp(path, text) for path, text in {**HELPERS, **CALLERS}.items()])
    assert "cs:App.Data.Extensions.QueryableExtensions.WhereIf|METHOD" in calls(graph, "App.Data.Repositories.ClientRepository.Find")
    assert "cs:App.Logic.Helpers.QueryableExtensions.WhereIf|METHOD" not in calls(graph, "App.Data.Repositories.ClientRepository.Find")
    assert not any(".WhereIf|" in target for target in calls(graph, "App.Web.Finder.Find"))


ENCLOSING = {
    "Lib.cs": """
namespace Lib.Ext
{
    public static class QueryableExtensions
    {
        public static IQueryable<T> WhereIf<T>(this IQueryable<T> query, bool condition, Expression<Func<T, bool>> p) => query;
    }
}
""",
    "Own.cs": """
namespace App
{
    public static class QueryableExtensions
    {
        public static IQueryable<T> WhereIf<T>(this IQueryable<T> query, bool condition, Expression<Func<T, bool>> p) => query;
    }
}
""",
    "Finder.cs": """
using Lib.Ext;
namespace App.Web
{
    public class Finder
    {
        private readonly ShopContext _db;
        public object Find(string s) { return _db.Clients.WhereIf(s != null, x => true).ToList(); }
    }
}
""",
}


def test_the_callers_enclosing_namespace_is_searched_before_the_files_usings():
    graph, _ = build_graph([parse_csharp(path, text) for path, text in ENCLOSING.items()])
    found = calls(graph, "App.Web.Finder.Find")
    # C# looks in `App.Web`, then `App` (which declares one), and only then at the file's `using Lib.Ext;`
    assert "cs:App.QueryableExtensions.WhereIf|METHOD" in found
    assert "cs:Lib.Ext.QueryableExtensions.WhereIf|METHOD" not in found
