"""Rows read by column name into an entity (ADO.NET data readers): the entity maps to the table or
view the callers' procedures read (`via="data_reader"`, a guess), the reading method is the code that
maps it; a method reading no reader column, or whose callers run no SQL, maps nothing."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.mappings import mapping_of
from ragstream.graph.named import Named
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.App_Issues (IssueId INT, IssueTitle NVARCHAR(100), ProjectId INT);
CREATE TABLE dbo.App_Projects (ProjectId INT, ProjectName NVARCHAR(100));
GO
CREATE VIEW dbo.App_IssuesView AS SELECT i.IssueId, i.IssueTitle, p.ProjectName FROM App_Issues i JOIN App_Projects p ON p.ProjectId = i.ProjectId;
GO
CREATE PROCEDURE dbo.App_Issue_GetById @Id INT AS SELECT * FROM App_IssuesView WHERE IssueId = @Id;
GO
CREATE PROCEDURE dbo.App_Project_GetById @Id INT AS SELECT * FROM App_Projects WHERE ProjectId = @Id;
"""

ENTITIES = '''namespace App { public class Issue { public int Id { get; set; } public string Title { get; set; } }
public class Project { public int Id { get; set; } public string Name { get; set; } }
public class MissingRowException : System.Exception { }
public class Audit { public Audit(string what) { } } }'''

PROVIDER = '''using System.Collections.Generic;
using System.Data;
using System.Data.SqlClient;
namespace App {
public delegate void FromReader<T>(IDataReader reader, ref List<T> list);
public class Provider {
    private const string SP_ISSUE_GET = "App_Issue_GetById";
    public Issue GetIssue(int id) {
        var cmd = new SqlCommand();
        cmd.CommandType = CommandType.StoredProcedure;
        cmd.CommandText = SP_ISSUE_GET;
        var list = new List<Issue>();
        Read(cmd, IssuesFromReader, ref list);
        return list[0];
    }
    public Project GetProject(int id) {
        var cmd = new SqlCommand("App_Project_GetById");
        using (var reader = cmd.ExecuteReader()) {
            return new Project { Id = reader.GetInt32(reader.GetOrdinal("ProjectId")), Name = (string)reader["ProjectName"] };
        }
    }
    private static void IssuesFromReader(IDataReader returnData, ref List<Issue> list) {
        while (returnData.Read()) { list.Add(MapIssue(returnData)); }
    }
    private static Issue MapIssue(IDataRecord record) {
        return new Issue { Id = (int)record["IssueId"], Title = (string)record["IssueTitle"] };
    }
    private static Project MapProject(IDataRecord record) {
        var project = new Project();
        project.Id = (int)record["ProjectId"];
        if (project.Id == 0) throw new MissingRowException();
        var audit = new Audit("read");
        return project;
    }
    private static Issue NotRead(Dictionary<string, object> values) {
        return new Issue { Id = (int)values["IssueId"] };
    }
    private void Read<T>(SqlCommand cmd, FromReader<T> read, ref List<T> list) {
        using (var reader = cmd.ExecuteReader()) { read(reader, ref list); }
    }
} }'''


def graph() -> nx.MultiDiGraph:
    files = [parse_csharp("Entities.cs", ENTITIES), parse_csharp("Provider.cs", PROVIDER),
             parse_sql("db.sql", SCHEMA, "tsql")]
    return build_graph(files)[0]


GRAPH = graph()


def test_a_record_read_by_a_method_group_maps_its_type_to_the_view_the_procedure_reads() -> None:
    edge = GRAPH.get_edge_data("cs:App.Issue|TYPE", "sql:dbo.App_IssuesView|VIEW", "MAPS_TO")
    assert edge is not None and edge["via"] == "data_reader" and edge["guess"] is True
    assert edge["by"] == "cs:App.Provider.MapIssue|METHOD" and edge["reader_columns"] == ["IssueId", "IssueTitle"]
    assert not GRAPH.has_edge("cs:App.Issue|TYPE", "sql:dbo.App_Projects|TABLE", "MAPS_TO")


def test_a_reader_run_in_the_method_maps_to_the_table_holding_its_columns() -> None:
    assert GRAPH.has_edge("cs:App.Project|TYPE", "sql:dbo.App_Projects|TABLE", "MAPS_TO")
    assert not GRAPH.has_edge("cs:App.Project|TYPE", "sql:dbo.App_IssuesView|VIEW", "MAPS_TO")


def test_only_the_objects_filled_from_the_columns_are_rows() -> None:
    """A local whose members are set from the columns is the row; what else the method creates (an
    exception it throws, a note it makes) maps to nothing."""
    parsed = parse_csharp("Provider.cs", PROVIDER)
    builds = {n.id: n.attrs.get("reader_builds") for n in parsed.nodes}
    built = builds["cs:App.Provider.MapProject|METHOD"]
    assert len(built) == 1 and "App.Project" in built[0]  # the guesses of one type: not the exception nor the note
    assert not GRAPH.has_edge("cs:App.MissingRowException|TYPE", "sql:dbo.App_Projects|TABLE", "MAPS_TO")
    assert not any(key == "MAPS_TO" for _, _, key in GRAPH.out_edges("cs:App.Audit|TYPE", keys=True))


def test_a_dictionary_indexed_by_name_is_no_reader() -> None:
    parsed = parse_csharp("Provider.cs", PROVIDER)
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert "reader_columns" not in attrs["cs:App.Provider.NotRead|METHOD"]
    assert attrs["cs:App.Provider.MapIssue|METHOD"]["reader_columns"] == ["IssueId", "IssueTitle"]


def test_the_mapping_answer_names_the_view_and_the_code_filling_the_type() -> None:
    items = {item.id for item in mapping_of(GRAPH, Named("cs:App.Issue|TYPE", "TYPE", "App.Issue", "words"), [])}
    assert {"sql:dbo.App_IssuesView|VIEW", "cs:App.Provider.MapIssue|METHOD"} <= items


def test_the_mapping_answer_goes_on_to_the_loader_running_the_procedure_then_the_views_own_table() -> None:
    """Hand-written data access: the method filling the list from the reader, the loader that
    runs the procedure, and the procedure; then the table behind the view that shares the
    entity's name before the other tables the view joins."""
    ids = [item.id for item in mapping_of(GRAPH, Named("cs:App.Issue|TYPE", "TYPE", "App.Issue", "words"), [])]
    filling = ["cs:App.Provider.IssuesFromReader|METHOD", "cs:App.Provider.GetIssue|METHOD",
               "sql:dbo.App_Issue_GetById|PROCEDURE"]
    assert [i for i in ids if i in filling] == filling
    assert ids.index(filling[-1]) < ids.index("sql:dbo.App_Issues|TABLE") < ids.index("sql:dbo.App_Projects|TABLE")
    assert "cs:App.Provider.GetProject|METHOD" not in ids  # fills a project, not an issue


# Columns read through an extension taking the column's name (Subtext's `ReadValue<T>`), or `DataRow.Field<T>`.
HELPERS = '''using System.Data;
using System.Data.SqlClient;
namespace App {
public static class DataHelper {
    public static T ReadValue<T>(this IDataReader reader, string columnName) { return (T)reader[columnName]; }
    public static Project ReadProject(this IDataReader reader, string prefix) {
        return new Project { Id = reader.ReadValue<int>(prefix + "ProjectId"), Name = reader.ReadValue<string>(prefix + "ProjectName") };
    }
    public static Project FromRow(DataRow row) { return new Project { Name = row.Field<string>("ProjectName") }; }
    public static Issue Counted(IDataReader reader) { return new Issue { Id = reader.GetInt32(0) }; }
}
public class Procedures {
    public IDataReader GetProject(int id) { return new SqlCommand("App_Project_GetById").ExecuteReader(); }
    public int CountIssues() { return (int)new SqlCommand("App_Issue_GetById").ExecuteScalar(); }  // no reader
}
public class Reads {
    Procedures _procedures = new Procedures();
    public Project Get(int id) {
        _procedures.CountIssues();
        using (IDataReader reader = _procedures.GetProject(id)) { return reader.ReadProject(""); }
    }
} }'''


def test_a_column_named_to_an_extension_on_the_reader_the_caller_was_returned_is_read() -> None:
    attrs = {n.id: n.attrs for n in parse_csharp("Helpers.cs", HELPERS).nodes}
    assert attrs["cs:App.DataHelper.ReadProject|METHOD"]["reader_columns"] == ["ProjectId", "ProjectName"]
    assert attrs["cs:App.DataHelper.FromRow|METHOD"]["reader_columns"] == ["ProjectName"]
    assert "reader_columns" not in attrs["cs:App.DataHelper.Counted|METHOD"]  # by ordinal: no name
    files = [parse_csharp("Entities.cs", ENTITIES), parse_csharp("Helpers.cs", HELPERS), parse_sql("db.sql", SCHEMA, "tsql")]
    graph = build_graph(files)[0]
    edge = graph.get_edge_data("cs:App.Project|TYPE", "sql:dbo.App_Projects|TABLE", "MAPS_TO")
    assert edge is not None and edge["by"] == "cs:App.DataHelper.ReadProject|METHOD"
    assert not graph.has_edge("cs:App.Project|TYPE", "sql:dbo.App_IssuesView|VIEW", "MAPS_TO")


def test_only_accessors_taking_a_columns_name_read_a_column() -> None:
    """A relation's name (`GetChildRows`), a format (`ToString("G")`) or a literal after a prefix no
    caller passes empty (`lang + "_Title"`) is no column; `Field<T>`, `GetOrdinal`, a `Get*` by name
    and a prefix declared `= ""` are."""
    parsed = parse_csharp("Rows.cs", '''using System.Data;
namespace App { public class Rows {
    Order Map(DataRow row, IDataReader reader, string lang, string prefix = "") {
        var o = new Order(); o.Id = row.Field<int>("OrderId");
        foreach (DataRow item in row.GetChildRows("FK_OrderLines_Orders")) { }
        var parent = row.GetParentRow("FK_Orders_Customers");
        o.Title = (string)row[lang + "_Title"];
        o.Note = reader.ToString("G");
        o.Code = reader.GetString(reader.GetOrdinal("Code"));
        o.Name = reader.GetString("Name");
        o.Total = (decimal)row[prefix + "Total"];
        return o;
    }
} }''')
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:App.Rows.Map|METHOD"]["reader_columns"] == ["OrderId", "Code", "Name", "Total"]
