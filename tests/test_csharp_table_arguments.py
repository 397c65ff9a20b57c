"""Tables a query builder is told by name (`table_arguments`): the method that builds and runs
`InsertInto("User", ...)` writes `User`, `SelectFrom("Page")` reads `Page`; with the edges that
must not be made (a literal naming no table, a name with no statement verb)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.csharp.table_arguments import statement_of
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE [User] ([Username] NVARCHAR(50) PRIMARY KEY, [PasswordHash] NVARCHAR(100));
CREATE TABLE [UserGroupMembership] ([User] NVARCHAR(50), [UserGroup] NVARCHAR(50));
CREATE TABLE [Page] ([Name] NVARCHAR(200) PRIMARY KEY);
"""

PROVIDER = """
namespace Wiki.Sql
{
    public class QueryBuilder
    {
        public static QueryBuilder NewQuery(ICommandBuilder builder) => new QueryBuilder();
        public string InsertInto(string table, string[] columns, string[] parameters) => "INSERT INTO [" + table + "]";
        public string SelectFrom(string table) => "SELECT * FROM [" + table + "]";
        public string DeleteFrom(string table) => "DELETE FROM [" + table + "]";
        public string Update(string table, string[] columns, string[] parameters) => "UPDATE [" + table + "]";
        public string Where(string query, string column, string parameter) => query + " WHERE " + column;
    }
    public class SqlUsersProvider
    {
        private readonly QueryBuilder queryBuilder = new QueryBuilder();
        private readonly Cache cache = new Cache();
        public void AddUser(string name, string hash)
        {
            string query = queryBuilder.InsertInto("User", new[] { "Username", "PasswordHash" }, new[] { "Username", "PasswordHash" });
            Execute(query);
        }
        public void SetMembership(string name)
        {
            Execute(queryBuilder.DeleteFrom("UserGroupMembership"));
            Execute(queryBuilder.InsertInto("UserGroupMembership", new[] { "User", "UserGroup" }, new[] { "User", "UserGroup" }));
        }
        public int CountPages() => Execute(queryBuilder.Where(queryBuilder.SelectFrom("Page"), "Name", "Name"));
        public void Remember() { cache.Update("user settings"); cache.Selected("Page"); }
        private int Execute(string sql) => 0;
    }
    public class Cache { public void Update(string key) { } public void Selected(string key) { } }
}
"""


def _edges(graph: nx.MultiDiGraph, method: str) -> set[tuple[str, str]]:
    return {(key, target) for _, target, key in graph.out_edges(f"cs:Wiki.Sql.SqlUsersProvider.{method}|METHOD", keys=True)
            if key in ("READS", "WRITES")}


def test_a_builder_call_naming_a_table_reads_or_writes_it_from_the_calling_method():
    graph = build_graph([parse_sql("db/schema.sql", SCHEMA), parse_csharp("Sql/Users.cs", PROVIDER)])[0]
    assert _edges(graph, "AddUser") == {("WRITES", "sql:dbo.User|TABLE")}
    assert _edges(graph, "SetMembership") == {("WRITES", "sql:dbo.UserGroupMembership|TABLE")}
    assert _edges(graph, "CountPages") == {("READS", "sql:dbo.Page|TABLE")}
    data = graph.get_edge_data("cs:Wiki.Sql.SqlUsersProvider.AddUser|METHOD", "sql:dbo.User|TABLE")["WRITES"]
    assert (data["via"], data["member"], data["guess"]) == ("table_argument", "InsertInto", True)
    # a key that names no table, and a method whose name says no statement, make nothing
    assert _edges(graph, "Remember") == set()


def test_a_statement_is_read_from_the_first_word_of_the_builders_name():
    assert [statement_of(n) for n in ("SelectFrom", "SelectCountFrom", "Count", "InsertInto", "UpdateIncrement",
                                      "DeleteFrom", "Upsert")] == ["READS", "READS", "READS", "WRITES", "WRITES",
                                                                   "WRITES", "WRITES"]
    assert [statement_of(n) for n in ("DeleteFromDb", "InsertData", "SelectAsync")] == ["WRITES", "WRITES", "READS"]
    assert [statement_of(n) for n in ("Selected", "Updater", "Countries", "Where", "Deleted", "SelectMenuItem",
                                      "UpdateStatus")] == [None] * 7
