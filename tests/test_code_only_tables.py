"""Tables known only from the SQL the code runs (`index/sql/code_only_tables`): a name the code's
SQL reads or writes and no script, migration or model defines is a TABLE, a guess; a system
catalog, an alias, a placeholder or a literal that merely reads as SQL makes none."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.code_only_tables import is_table_name
from ragstream.index.sql.parser import parse_sql

COUNTERS = """
using System.Data;
using Dapper;
using MySqlConnector;
namespace Stats;
public class Counters
{
    private readonly MySqlConnection _conn;
    public void Bump() => _conn.Execute("UPDATE osu_counts SET count = count + 1 WHERE name = @name");
    public long Read() => _conn.QuerySingle<long>("SELECT count FROM osu_counts WHERE name = @name");
    public void Attribs() => _conn.Execute("DELETE FROM osu.osu_beatmap_difficulty_attribs WHERE beatmap_id = @id");
    public int Attrib() => _conn.QuerySingle<int>("SELECT value FROM osu_beatmap_difficulty_attribs WHERE beatmap_id = @id");
    public int Tables() => _conn.QuerySingle<int>("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'scores'");
    public int Objects() => _conn.QuerySingle<int>("SELECT COUNT(*) FROM sys.objects o JOIN sqlite_master m ON 1 = 1");
    public void Users() => _conn.Execute("UPDATE users SET active = 1 WHERE id IN (SELECT user_id FROM phpbb_users)");
    public void Known() => _conn.Execute("UPDATE dbo.Scripted SET done = 1");
}
"""

SCRIPT = "CREATE TABLE dbo.Scripted (Id int NOT NULL, done bit NOT NULL);\n"


def _build() -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp("Counters.cs", COUNTERS), parse_sql("schema.sql", SCRIPT)])
    return graph


def _targets(graph: nx.MultiDiGraph, method: str, key: str) -> set[str]:
    return {t for _, t, k in graph.out_edges(f"cs:Stats.Counters.{method}|METHOD", keys=True) if k == key}


def test_a_table_only_the_code_names_is_a_table_marked_a_guess_at_its_first_use():
    graph = _build()
    table = "sql:osu_counts|TABLE"
    assert _targets(graph, "Bump", "WRITES") == {table}
    assert _targets(graph, "Read", "READS") == {table}
    data = graph.nodes[table]
    assert data["kind"] == "TABLE" and data["attrs"]["via"] == "sql_text" and data["attrs"]["guess"] is True
    assert data["path"] == "Counters.cs" and data["start_line"] == 9  # `Bump`: the first statement naming it
    assert "ext:osu_counts|EXTERNAL" not in graph


def test_the_bare_and_the_schema_qualified_spelling_are_one_table_named_with_its_schema():
    graph = _build()
    table = "sql:osu.osu_beatmap_difficulty_attribs|TABLE"
    assert _targets(graph, "Attribs", "WRITES") == {table}
    assert _targets(graph, "Attrib", "READS") == {table}
    assert graph.nodes[table]["attrs"]["spellings"] == ["osu.osu_beatmap_difficulty_attribs",
                                                      "osu_beatmap_difficulty_attribs"]
    assert "sql:osu_beatmap_difficulty_attribs|TABLE" not in graph


def test_system_catalogs_make_no_table_and_a_scripted_table_is_left_as_it_is():
    graph = _build()
    for method in ("Tables", "Objects"):
        assert all(graph.nodes[t]["kind"] == "EXTERNAL" for t in _targets(graph, method, "READS"))
    assert _targets(graph, "Known", "WRITES") == {"sql:dbo.Scripted|TABLE"}
    assert "attrs" not in graph.nodes["sql:dbo.Scripted|TABLE"] \
        or graph.nodes["sql:dbo.Scripted|TABLE"]["attrs"].get("via") != "sql_text"
    # a subquery's table is read, the updated one written: both tables of the code
    assert _targets(graph, "Users", "WRITES") == {"sql:users|TABLE"}
    assert "sql:phpbb_users|TABLE" in _targets(graph, "Users", "READS")


def test_a_literal_that_merely_reads_as_sql_makes_no_table():
    text = """
namespace Web;
public class TagController
{
    public string Save() { return "delete failed for this tag"; }
}
"""
    graph, _ = build_graph([parse_csharp("TagController.cs", text)])
    assert not [n for n, d in graph.nodes(data=True) if d.get("kind") == "TABLE"]


def test_table_names_are_plain_identifiers_and_not_catalogs_aliases_or_placeholders():
    assert is_table_name("osu_counts") and is_table_name("osu.osu_counts") and is_table_name("Users")
    for name in ("a", "T", "sys.tables", "INFORMATION_SCHEMA.COLUMNS", "sqlite_master", "dbo.sysobjects",
                 "osu_user_stats_mania_@p0k", "DelVolSetIds-@p0", "LATERAL", "pragma_table_xinfo", "pg_class"):
        assert not is_table_name(name), name


def test_a_name_the_repository_defines_under_a_prefix_a_plural_or_another_casing_makes_no_table():
    """An importer reading another application's `Page` and `post_comment` beside the repository's
    `roadkill_pages` and an ORM's `PostComment`: those names are the repository's tables (or another
    database's), not tables only the code names."""
    text = """
namespace Wiki;
public class Importer
{
    private readonly System.Data.IDbConnection _db;
    public void Pages() => Dapper.SqlMapper.Execute(_db, "SELECT Name FROM Page");
    public void Comments() => Dapper.SqlMapper.Execute(_db, "DELETE FROM post_comment WHERE id = 1");
    public void Files() => Dapper.SqlMapper.Execute(_db, "SELECT Name FROM File");
}
"""
    script = "CREATE TABLE roadkill_pages (Id int NOT NULL); CREATE TABLE PostComment (Id int NOT NULL);"
    graph, _ = build_graph([parse_csharp("Importer.cs", text), parse_sql("schema.sql", script)])
    made = {n for n, d in graph.nodes(data=True) if (d.get("attrs") or {}).get("via") == "sql_text"}
    assert made == {"sql:File|TABLE"}
