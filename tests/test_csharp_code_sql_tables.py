"""Tables an application creates from CREATE TABLE strings in its own code (an installer, a
schema upgrader, a plug-in's storage provider): TABLE and COLUMN nodes where no script, model or
migration has the table, so the code that queries them links to a table, not to a name."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA_IN_CODE = '''
using System.Data.SQLite;
namespace Wiki.Storage;
public class SqliteUsers
{
    private const string CreateUsers = @"
CREATE TABLE Users (
    Id INTEGER PRIMARY KEY,
    Name TEXT NOT NULL
)";
    private readonly SQLiteConnection _connection;
    public void Install()
    {
        using var command = _connection.CreateCommand();
        command.CommandText = CreateUsers;
        command.ExecuteNonQuery();
        command.CommandText = "CREATE TABLE Roles (Id INTEGER PRIMARY KEY, Title TEXT)";
        command.ExecuteNonQuery();
        command.CommandText = "CREATE TABLE #Scratch (Id INT)";
        command.ExecuteNonQuery();
    }
    public string Name(int id)
    {
        using var command = new SQLiteCommand("SELECT Name FROM Users WHERE Id = @id", _connection);
        return (string)command.ExecuteScalar();
    }
    public void Fail(ILogger log) => log.Warn("could not create table Users, retrying");
}
'''


def _graph(**files: str) -> nx.MultiDiGraph:
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text) for path, text in files.items()]
    return build_graph(parsed)[0]


def test_a_create_table_string_makes_the_table_its_columns_and_the_link_from_the_code_that_reads_it():
    graph = _graph(**{"Storage/SqliteUsers.cs": SCHEMA_IN_CODE})
    users = graph.nodes["sql:Users|TABLE"]
    assert (users["path"], users["start_line"], users["attrs"]["via"]) == ("Storage/SqliteUsers.cs", 7, "sql_string")
    assert {n for n, d in graph.nodes(data=True) if d.get("kind") == "COLUMN"} >= {
        "sql:Users.Id|COLUMN", "sql:Users.Name|COLUMN", "sql:Roles.Id|COLUMN", "sql:Roles.Title|COLUMN"}
    assert graph.nodes["sql:Users.Name|COLUMN"]["start_line"] == 9
    # the file holds them, as a script does; the class holding a schema configures none of its tables
    assert graph.has_edge("file:Storage/SqliteUsers.cs|FILE", "sql:Roles|TABLE", key="DEFINES")
    assert not [s for s, _ in graph.in_edges("sql:Roles|TABLE") if s.startswith("cs:")]
    assert graph.has_edge("cs:Wiki.Storage.SqliteUsers.Name|METHOD", "sql:Users|TABLE", key="READS")
    # a temporary table is no table of the schema; a log message saying "create table" makes nothing
    assert not [n for n in graph if "Scratch" in n]
    assert not graph.has_edge("cs:Wiki.Storage.SqliteUsers.Fail|METHOD", "sql:Users|TABLE")


def test_a_script_defines_the_table_a_string_also_creates():
    graph = _graph(**{"Storage/SqliteUsers.cs": SCHEMA_IN_CODE,
                      "db/schema.sql": "CREATE TABLE dbo.Users (\n  Id INT PRIMARY KEY,\n  Name NVARCHAR(50)\n)\nGO\n"})
    assert graph.nodes["sql:dbo.Users|TABLE"]["path"] == "db/schema.sql"
    assert "sql:Users|TABLE" not in graph and "sql:Users.Id|COLUMN" not in graph  # one table, the script's
    assert graph.has_edge("cs:Wiki.Storage.SqliteUsers.Name|METHOD", "sql:dbo.Users|TABLE", key="READS")
    assert graph.nodes["sql:Roles|TABLE"]["attrs"]["via"] == "sql_string"  # no script has this one


def test_strings_for_several_engines_make_one_table_under_its_schema():
    """An application creating its schema once per engine (Shoko's SQLite, MySQL and SQL Server
    classes): one table, named with the schema the T-SQL string gives it, whichever file comes first."""
    mysql = 'namespace Db; public class MySQL { string[] Create = { "CREATE TABLE `ImportFolder` (`ImportFolderID` INT NOT NULL AUTO_INCREMENT, PRIMARY KEY (`ImportFolderID`))" }; }'
    sqlserver = 'namespace Db; public class SQLServer { string[] Create = { "CREATE TABLE [dbo].[ImportFolder]( [ImportFolderID] [int] IDENTITY(1,1) NOT NULL, [Name] nvarchar(max) )" }; }'
    graph = _graph(**{"Databases/MySQL.cs": mysql, "Databases/SQLServer.cs": sqlserver})
    tables = sorted(n for n, d in graph.nodes(data=True) if d.get("kind") == "TABLE")
    assert tables == ["sql:dbo.ImportFolder|TABLE"]
    assert graph.nodes[tables[0]]["path"] == "Databases/SQLServer.cs"
    assert "sql:dbo.ImportFolder.Name|COLUMN" in graph and "sql:ImportFolder.ImportFolderID|COLUMN" not in graph


def test_a_string_creating_the_scripts_table_under_the_same_name_leaves_the_scripts_table():
    """A code string's `CREATE TABLE [dbo].[Users]` has the id of the script's `dbo.Users`: the
    string's nodes go, the script's stay, with the columns later scripts add (no bare node)."""
    code = 'namespace Db; public class Setup { string Create = "CREATE TABLE [dbo].[Users] ([Id] INT NOT NULL, [Nick] NVARCHAR(20))"; }'
    graph = _graph(**{"Db/Setup.cs": code,
                      "db/v01.sql": "CREATE TABLE dbo.Users (\n  Id INT PRIMARY KEY,\n  Name NVARCHAR(50)\n)\nGO\n",
                      "db/v02.sql": "ALTER TABLE Users ADD Email NVARCHAR(200);\n"})
    users = graph.nodes["sql:dbo.Users|TABLE"]
    assert users["path"] == "db/v01.sql"
    assert {t for _, t, k in graph.out_edges("sql:dbo.Users|TABLE", keys=True) if k == "DEFINES"} == \
        {"sql:dbo.Users.Id|COLUMN", "sql:dbo.Users.Name|COLUMN", "sql:dbo.Users.Email|COLUMN"}
    assert all("id" in data for _, data in graph.nodes(data=True))


def test_temporary_tables_a_batch_string_creates_are_no_tables():
    """`CREATE TABLE #Work (...)` in a batch of statements with no `;` between them, and
    PostgreSQL's `CREATE TEMPORARY TABLE`: a session's scratch tables, not the schema's."""
    batch = '''namespace Jobs; public class Cleaner { private readonly IDbConnection _connection;
public void Run() { using (var cmd = _connection.CreateCommand()) {
 cmd.CommandText = $@"CREATE TABLE #Work (Id int NOT NULL PRIMARY KEY, Total int)
              INSERT #Work (Id, Total) SELECT TOP(100) OwnerId, Count(Id) FROM Reports GROUP BY OwnerId
              CREATE TABLE [#Gone] (Id int not null primary key)";
 cmd.ExecuteNonQuery(); } }
 string Pg = "CREATE TEMPORARY TABLE scratch_rows (id bigint)"; }'''
    graph = _graph(**{"Jobs/Cleaner.cs": batch, "db/s.sql": "CREATE TEMPORARY TABLE staging (id int);\nCREATE TABLE Reports (Id INT);"})
    assert sorted(n for n, d in graph.nodes(data=True) if d.get("kind") == "TABLE") == ["sql:Reports|TABLE"]
