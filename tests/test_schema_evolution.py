"""Schema evolution: migration scripts replayed in path order into the graph's final schema."""
from __future__ import annotations

from pathlib import Path

import pytest

from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql
from ragstream.index.sql.schema_evolution import evolve_schema, natural_key

SCRIPTS = {
    "Migrations/9 - Metadata.sql": (
        "CREATE TABLE [dbo].[Metadata] ([Id] INT NOT NULL PRIMARY KEY, [Title] NVARCHAR(100),\n"
        "    [Old] INT)\nGO\n"
        "CREATE TABLE dbo.Scratch (Id INT)\nGO\n"
        "CREATE PROCEDURE dbo.usp_Titles AS SELECT Title FROM Metadata\nGO\n"
        "CREATE PROCEDURE dbo.usp_Scratch AS SELECT Id FROM dbo.Scratch\n"
    ),
    "Migrations/10 - Rename.sql": (
        "if object_id('Metadata') is not null\nbegin\n"
        "    exec sp_rename 'Metadata', 'QuerySets'\nend\nGO\n"
        "exec sp_rename 'QuerySets.Title', 'Name', 'COLUMN'\nGO\n"
        "ALTER TABLE QuerySets ADD CreationDate DATETIME NULL\nGO\n"
        "ALTER TABLE QuerySets DROP COLUMN Old\nGO\n"
        "DROP TABLE dbo.Scratch\nGO\n"
        "DROP PROCEDURE dbo.usp_Scratch\n"
    ),
    "Procs/usp_Read.sql": "CREATE PROCEDURE dbo.usp_Read AS SELECT Name FROM dbo.QuerySets\n",
}


@pytest.fixture(scope="module")
def graph():
    # Listed out of order on purpose: the replay sorts paths naturally (9 before 10).
    files = [parse_sql(path, SCRIPTS[path], "tsql") for path in reversed(list(SCRIPTS))]
    return build_graph(files)[0]


def test_natural_order():
    paths = ["Migrations/10 - b.sql", "Migrations/9 - a.sql", "Migrations/001 - x.sql"]
    assert sorted(paths, key=natural_key) == [
        "Migrations/001 - x.sql", "Migrations/9 - a.sql", "Migrations/10 - b.sql"]


def test_renamed_table_is_one_node_under_its_final_name(graph):
    table = "sql:dbo.QuerySets|TABLE"
    assert graph.nodes[table]["attrs"]["renamed_from"] == ["dbo.Metadata"]
    assert "sql:dbo.Metadata|TABLE" not in graph and "sql:QuerySets|TABLE" not in graph
    columns = {t for _, t, k in graph.out_edges(table, keys=True) if k == "DEFINES"}
    assert columns == {"sql:dbo.QuerySets.Id|COLUMN", "sql:dbo.QuerySets.Name|COLUMN",
                       "sql:dbo.QuerySets.CreationDate|COLUMN"}  # Title renamed, Old dropped
    assert "sql:dbo.Metadata.Title|COLUMN" not in graph
    assert "sql:dbo.QuerySets.Old|COLUMN" not in graph


def test_references_to_either_name_resolve_to_it(graph):
    for proc in ("sql:dbo.usp_Titles|PROCEDURE", "sql:dbo.usp_Read|PROCEDURE"):
        edge = graph.get_edge_data(proc, "sql:dbo.QuerySets|TABLE", "READS")
        assert edge is not None and edge["resolution"] == "static"
    assert graph.get_edge_data("sql:dbo.usp_Titles|PROCEDURE", "sql:dbo.QuerySets|TABLE",
                               "READS")["renamed_to"] == "dbo.QuerySets"
    assert "ext:Metadata|EXTERNAL" not in graph


def test_dropped_objects_are_gone(graph):
    assert "sql:dbo.Scratch|TABLE" not in graph and "sql:dbo.Scratch.Id|COLUMN" not in graph
    assert "sql:dbo.usp_Scratch|PROCEDURE" not in graph  # and so is what its body read
    assert not any(n.endswith("Scratch|EXTERNAL") for n in graph)


def test_scripts_that_changed_a_table_link_to_it(graph):
    table = "sql:dbo.QuerySets|TABLE"
    link = graph.get_edge_data("file:Migrations/10 - Rename.sql|FILE", table, "REFERENCES")
    assert link["resolution"] == "schema_evolution"
    assert link["changes"][0] == "renamed dbo.Metadata to dbo.QuerySets (line 3)"
    assert any(change.startswith("added column CreationDate") for change in link["changes"])
    assert graph.get_edge_data("file:Migrations/9 - Metadata.sql|FILE", table, "DEFINES")
    # The creating script defines it; it changed nothing else, so no REFERENCES link.
    assert graph.get_edge_data("file:Migrations/9 - Metadata.sql|FILE", table,
                               "REFERENCES") is None


def test_latest_definition_wins():
    first = parse_sql("a/1.sql", "CREATE PROCEDURE dbo.P AS SELECT * FROM dbo.Old\n", "tsql")
    second = parse_sql("a/2.sql", "ALTER PROCEDURE dbo.P AS SELECT * FROM dbo.New\n", "tsql")
    evolved = evolve_schema([second, first])
    assert [n.id for n in evolved[1].nodes] == ["file:a/1.sql|FILE"]
    assert evolved[1].references == [] and [r.target for r in evolved[0].references] == ["dbo.New"]


def test_files_without_changes_are_returned_as_they_are():
    files = [parse_sql("s.sql", "CREATE TABLE t (id INT)\n")]
    assert evolve_schema(files) is files


EXPLORER = Path("/work/evaltrees/StackExchange+StackExchange.DataExplorer")


@pytest.mark.skipif(not EXPLORER.is_dir(), reason="the StackExchange.DataExplorer checkout")
def test_data_explorer_migrations():
    paths = sorted((EXPLORER / "Migrations").glob("*.sql"))
    files = [parse_sql(str(p.relative_to(EXPLORER)), p.read_text(encoding="utf-8-sig"))
             for p in paths]
    graph = build_graph(files)[0]
    for table, old, column in (("QuerySets", "Metadata", "InitialRevisionId"),
                               ("RevisionExecutions", "QueryExecutions", "RevisionId"),
                               ("UserOpenIds", "UserOpenId", "IsSecure")):
        assert graph.nodes[f"sql:dbo.{table}|TABLE"]["attrs"]["renamed_from"] == [f"dbo.{old}"]
        assert f"sql:dbo.{table}.{column}|COLUMN" in graph
        assert f"sql:dbo.{old}|TABLE" not in graph


def test_a_drop_in_another_schema_leaves_a_namesake_alone():
    files = [parse_sql("m/001.sql", "CREATE TABLE dbo.Users (Id INT);", "tsql"),
             parse_sql("m/002.sql", "DROP TABLE staging.Users;", "tsql"),
             parse_sql("m/003.sql", "CREATE TABLE Logs (Id INT);", "tsql"),
             parse_sql("m/004.sql", "DROP TABLE Logs;", "tsql")]
    graph, _ = build_graph(files)
    assert "sql:dbo.Users|TABLE" in graph  # staging.Users was never this table
    assert "sql:dbo.Logs|TABLE" not in graph  # written without a schema, as it was created: dropped


TEMPLATE = (  # a SQLCMD install template and the script generated from it for the default schema
    "CREATE TABLE [$(AppSchema)].[Job] ([Id] INT NOT NULL PRIMARY KEY, [StateName] NVARCHAR(20))\nGO\n"
    "CREATE TABLE [$(AppSchema)].[State] ([Id] INT NOT NULL PRIMARY KEY, [JobId] INT NOT NULL,\n"
    "    CONSTRAINT [FK_State_Job] FOREIGN KEY ([JobId]) REFERENCES [$(AppSchema)].[Job] ([Id]))\nGO\n"
    "CREATE TABLE [$(AppSchema)].[Lock] ([Resource] NVARCHAR(100))\nGO\n"
)
GENERATED = TEMPLATE.replace("$(AppSchema)", "App")


def test_a_placeholder_schema_with_concrete_twins_is_that_schema():
    files = [parse_sql("db/Generated.sql", GENERATED, "tsql"), parse_sql("db/Install.sql", TEMPLATE, "tsql")]
    graph = build_graph(files)[0]
    assert not [n for n in graph if "$(" in n]  # no copies: one table per name
    job = graph.nodes["sql:App.Job|TABLE"]
    assert job["path"] == "db/Install.sql"  # the later script's definition is the node
    assert graph.has_edge("file:db/Generated.sql|FILE", "sql:App.Job|TABLE", key="REFERENCES")
    assert graph.has_edge("sql:App.State|TABLE", "sql:App.Job|TABLE", key="FOREIGN_KEY")
    assert "sql:App.Job.StateName|COLUMN" in graph


def test_a_placeholder_schema_without_twins_stays_as_written():
    unrelated = "CREATE TABLE dbo.Job (Id INT)\nGO\n"  # one name of three in common: not the same schema
    files = [parse_sql("db/Other.sql", unrelated, "tsql"), parse_sql("db/Install.sql", TEMPLATE, "tsql")]
    graph = build_graph(files)[0]
    assert "sql:$(AppSchema).Job|TABLE" in graph and "sql:dbo.Job|TABLE" in graph
    assert "sql:$(AppSchema).Lock|TABLE" in graph


def test_a_placeholder_schema_none_of_whose_objects_has_a_twin_is_the_default_schema():
    dbup = "create table $schema$.[Entry] ([Id] int not null primary key, [Name] nvarchar(50))\ngo\n" \
           "create table $schema$.[Comment] ([Id] int, [EntryId] int not null references $schema$.[Entry]([Id]))\ngo\n"
    graph = build_graph([parse_sql("Scripts/Script0001.sql", dbup, "tsql")])[0]
    assert not [n for n in graph if "$schema$" in n]  # DbUp's $schema$: the server's default
    assert graph.nodes["sql:dbo.Entry|TABLE"]["attrs"]["template_schema"] == "$schema$"
    assert graph.has_edge("sql:dbo.Comment|TABLE", "sql:dbo.Entry|TABLE", key="FOREIGN_KEY")
