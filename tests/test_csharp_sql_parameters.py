"""SQL handed to a helper that runs it: a caller passes a procedure's name (a constant of another
part of its partial type, or a literal) or SQL text to a method whose string parameter becomes the
command's text; the caller runs that procedure / those tables (`via="sql_parameter"`, `helper`),
the helper itself does not, and a string passed to a method that only logs it runs nothing."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.App_Comments (Id INT, Body NVARCHAR(100));
CREATE TABLE dbo.App_Issues (Id INT, Title NVARCHAR(100));
GO
CREATE PROCEDURE dbo.App_Comment_Create @Body NVARCHAR(100) AS INSERT INTO App_Comments (Body) VALUES (@Body);
GO
CREATE PROCEDURE dbo.App_Issue_Get @Id INT AS SELECT * FROM App_Issues WHERE Id = @Id;
"""

# Three parts of one partial provider, in three files, as an ADO.NET data provider keeps them.
CONSTANTS = '''namespace Data { public partial class SqlProvider {
    private const string SP_COMMENT_CREATE = "App_Comment_Create";
    private const string SP_ISSUE_GET = "App_Issue_Get";
} }'''

HELPERS = '''using System.Data;
namespace Data { public partial class SqlProvider {
    private static void SetCommandType(IDbCommand sqlCmd, CommandType cmdType, string cmdText) {
        sqlCmd.CommandType = cmdType;
        sqlCmd.CommandText = cmdText;
    }
    private static void Run(IDbCommand sqlCmd, string text) { SetCommandType(sqlCmd, CommandType.Text, text); }
    private static void Describe(IDbCommand sqlCmd, string text) { sqlCmd.Site = null; Log(text); }
    private static void Reassigned(IDbCommand sqlCmd, string text) { text = "select 1"; sqlCmd.CommandText = text; }
    private static void Log(string message) { }
} }'''

METHODS = '''using System.Data;
using System.Data.SqlClient;
namespace Data { public partial class SqlProvider {
    public int CreateComment(string body) {
        using (var sqlCmd = new SqlCommand()) {
            SetCommandType(sqlCmd, CommandType.StoredProcedure, SP_COMMENT_CREATE);
            return 1;
        }
    }
    public void GetIssue(int id) {
        var sqlCmd = new SqlCommand();
        Run(sqlCmd, "select Title from App_Issues where Id = @id");
    }
    public void LogsOnly() {
        var sqlCmd = new SqlCommand();
        Describe(sqlCmd, SP_ISSUE_GET);
        Reassigned(sqlCmd, SP_ISSUE_GET);
    }
} }'''


def graph_of(cs: dict[str, str]) -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in cs.items()] + [parse_sql("Install.sql", SCHEMA, "tsql")]
    graph, _ = build_graph(files)
    return graph


def edges_from(graph: nx.MultiDiGraph, method: str) -> dict[tuple[str, str], dict]:
    return {(key, target): data for source, target, key, data in graph.edges(keys=True, data=True)
            if source == f"cs:Data.SqlProvider.{method}|METHOD" and key in ("CALLS", "READS", "WRITES")
            and target.startswith("sql:")}


GRAPH = graph_of({"SqlProviderConstants.cs": CONSTANTS, "SqlProviderHelpers.cs": HELPERS,
                  "SqlProvider.cs": METHODS})


def test_a_constant_of_another_part_passed_to_a_helper_calls_the_procedure() -> None:
    edge = edges_from(GRAPH, "CreateComment")[("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")]
    assert edge["via"] == "sql_parameter"
    assert edge["helper"] == "cs:Data.SqlProvider.SetCommandType|METHOD"
    assert edge["resolution"] == "inferred"


def test_sql_text_forwarded_through_a_second_helper_reads_its_table() -> None:
    edges = edges_from(GRAPH, "GetIssue")
    assert edges[("READS", "sql:dbo.App_Issues|TABLE")]["helper"] == "cs:Data.SqlProvider.Run|METHOD"


def test_the_helper_itself_runs_nothing_and_a_logged_or_reassigned_text_runs_nothing() -> None:
    assert edges_from(GRAPH, "SetCommandType") == {}
    assert edges_from(GRAPH, "Run") == {}
    assert edges_from(GRAPH, "LogsOnly") == {}


def test_a_name_the_type_does_not_declare_runs_nothing() -> None:
    graph = graph_of({"SqlProviderHelpers.cs": HELPERS, "SqlProvider.cs": METHODS})  # no constants part
    assert ("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE") not in edges_from(graph, "CreateComment")


def test_the_helper_records_which_argument_it_runs() -> None:
    parsed = parse_csharp("SqlProviderHelpers.cs", HELPERS)
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:Data.SqlProvider.SetCommandType|METHOD"]["sql_parameters"] == [2]
    assert "sql_parameters" not in attrs["cs:Data.SqlProvider.Describe|METHOD"]
    assert "sql_parameters" not in attrs["cs:Data.SqlProvider.Reassigned|METHOD"]


# A reader callback passed by name from one part of a partial type to a helper in another.
READERS = '''using System.Collections.Generic;
using System.Data;
namespace Data {
public delegate void FromReader<T>(IDataReader reader, ref List<T> list);
public partial class SqlProvider {
    private static void IssuesFromReader(IDataReader reader, ref List<string> list) { }
    private void ReadInto<T>(IDbCommand cmd, FromReader<T> read, ref List<T> list) {
        using (var reader = cmd.ExecuteReader()) { read(reader, ref list); }
    }
    private void Register<T>(FromReader<T> read) { Handlers.Add(read); }
} }'''

READS = '''using System.Collections.Generic;
using System.Data;
using System.Data.SqlClient;
namespace Data { public partial class SqlProvider {
    public void Issues() {
        var list = new List<string>();
        ReadInto(new SqlCommand(), IssuesFromReader, ref list);
    }
    public void Registers() { Register<string>(IssuesFromReader); }
    public void Local() {
        FromReader<string> IssuesFromReader = null;
        var list = new List<string>();
        ReadInto(new SqlCommand(), IssuesFromReader, ref list);
    }
}
public class Other { public void Issues(SqlProvider p) { Log(IssuesFromReader); } void Log(object o) { } }
}'''


def test_a_method_passed_by_name_where_the_callee_invokes_it_is_called_by_the_caller_as_a_guess() -> None:
    graph = graph_of({"Readers.cs": READERS, "Reads.cs": READS})
    edge = graph.get_edge_data("cs:Data.SqlProvider.Issues|METHOD", "cs:Data.SqlProvider.IssuesFromReader|METHOD", "CALLS")
    assert edge is not None and edge["via"] == "method_group" and edge["guess"] is True
    assert edge["passed_to"] == "cs:Data.SqlProvider.ReadInto|METHOD"
    # handed to a method that only keeps it (a registration), it is not called
    assert not graph.has_edge("cs:Data.SqlProvider.Registers|METHOD", "cs:Data.SqlProvider.IssuesFromReader|METHOD")
    # a local of that name is no method group; another type's method is not in scope
    assert not graph.has_edge("cs:Data.SqlProvider.Local|METHOD", "cs:Data.SqlProvider.IssuesFromReader|METHOD")
    assert not graph.has_edge("cs:Data.Other.Issues|METHOD", "cs:Data.SqlProvider.IssuesFromReader|METHOD")


# The Data Access Application Block's order: the text follows the `CommandType`; a helper hands its
# parameter to a lambda it passes on, the callee invokes the lambda with it (Subtext's StoredProcedures).
DAAB = '''using System;
using System.Data;
using System.Data.SqlClient;
namespace Data { public partial class SqlProvider {
    string ConnectionString { get; set; }
    private int NonQueryInt(string sql, SqlParameter[] parameters) {
        return ExecuteQueryAndLogError((sqlStatement, sqlParams) =>
            SqlHelper.ExecuteNonQuery(ConnectionString, CommandType.StoredProcedure, sqlStatement, sqlParams), sql, parameters);
    }
    private int LoggedOnly(string sql, SqlParameter[] parameters) {
        return ExecuteQueryAndLogError((sqlStatement, sqlParams) => Log(sqlStatement), sql, parameters);
    }
    private int OtherArgument(string sql, string note) {
        return KeepsText((sqlStatement, sqlParams) =>
            SqlHelper.ExecuteNonQuery(ConnectionString, CommandType.StoredProcedure, sqlStatement, null), sql, note);
    }
    private static TResult ExecuteQueryAndLogError<TResult>(Func<string, SqlParameter[], TResult> query, string sql,
                                                            SqlParameter[] parameters) {
        return query(sql, parameters);
    }
    private static int KeepsText(Func<string, SqlParameter[], int> query, string sql, string note) {
        return query(note, null);
    }
    private IDataReader GetReader(string spName) {
        return SqlHelper.ExecuteReader(ConnectionString, CommandType.StoredProcedure, spName);
    }
    private IDataReader ByConnection(string connectionString, string spName) {
        return SqlHelper.ExecuteReader(connectionString, spName);
    }
    private static int Log(string text) { return 0; }
    public void CreateComment() { NonQueryInt("App_Comment_Create", null); }
    public void GetIssueAndComment() { GetReader("App_Issue_Get"); GetReader("App_Comment_Create"); }
    public void Logs() { LoggedOnly("App_Comment_Create", null); OtherArgument("App_Issue_Get", "App_Comment_Create"); }
    public void Connects() { ByConnection("App_Comment_Create", "App_Issue_Get"); }
} }'''


def test_a_text_handed_to_a_lambda_the_callee_invokes_with_it_is_run_after_the_command_type() -> None:
    graph = graph_of({"Daab.cs": DAAB})
    edge = edges_from(graph, "CreateComment")[("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")]
    assert edge["via"] == "sql_parameter" and edge["helper"] == "cs:Data.SqlProvider.NonQueryInt|METHOD"
    assert not edge.get("guess")  # the `CommandType` says it is the command's text
    # a lambda that only logs its parameter runs nothing; a callee invoking it with another parameter runs that one
    assert edges_from(graph, "Logs") == {("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE"): edges_from(graph, "Logs")[
        ("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")]}
    assert edges_from(graph, "Logs")[("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")]["helper"] \
        == "cs:Data.SqlProvider.OtherArgument|METHOD"


def test_two_calls_of_one_helper_run_both_texts() -> None:
    edges = edges_from(graph_of({"Daab.cs": DAAB}), "GetIssueAndComment")
    assert {target for _, target in edges} == {"sql:dbo.App_Issue_Get|PROCEDURE", "sql:dbo.App_Comment_Create|PROCEDURE"}


def test_each_call_of_one_helper_keeps_its_own_line() -> None:
    graph = graph_of({"Lines.cs": '''using System.Data.SqlClient;
namespace Data { public partial class SqlProvider {
    void Load(string name) { new SqlCommand(name).ExecuteReader(); }
    public void Twice() {
        Load("App_Issue_Get");
        System.Console.WriteLine();
        Load("SELECT * FROM App_Comments");
    }
} }'''})
    edges = edges_from(graph, "Twice")
    assert edges[("CALLS", "sql:dbo.App_Issue_Get|PROCEDURE")]["line"] == 5
    assert edges[("READS", "sql:dbo.App_Comments|TABLE")]["line"] == 7  # not the first call's line 5


def test_the_connection_a_static_helper_takes_first_is_no_sql() -> None:
    parsed = parse_csharp("Daab.cs", DAAB)
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:Data.SqlProvider.ByConnection|METHOD"]["sql_parameters"] == [1]
    assert attrs["cs:Data.SqlProvider.ExecuteQueryAndLogError|METHOD"]["delegate_arguments"] == [[0, 0, 1], [0, 1, 2]]
    edges = edges_from(graph_of({"Daab.cs": DAAB}), "Connects")
    assert set(edges) == {("CALLS", "sql:dbo.App_Issue_Get|PROCEDURE")}
    assert edges[("CALLS", "sql:dbo.App_Issue_Get|PROCEDURE")]["guess"] is True  # only `ExecuteReader`'s name says so


# A call names the interface's method; the implementation runs the name (Cofoundry's EntityFrameworkSqlExecutor).
EXECUTOR = '''using Microsoft.EntityFrameworkCore;
namespace Data {
public interface ISqlExecutor { Task<int> ExecuteCommandAsync(DbContext dbContext, string spName, params object[] p); }
public class SqlExecutor : ISqlExecutor {
    public Task<int> ExecuteCommandAsync(DbContext dbContext, string spName, params object[] p) {
        return dbContext.Database.ExecuteSqlRawAsync(spName, p);
    }
}
public static class Db {
    public static int Run(this string connection, string sql) { return new SqlCommand(sql).ExecuteNonQuery(); }
}
public class Scheduler { public void Execute(string job) { } }
public partial class SqlProvider {
    ISqlExecutor _executor;
    Scheduler _scheduler;
    public void CreateComment() { _executor.ExecuteCommandAsync(null, "App_Comment_Create"); }
    public void Static() { Db.Run("App_Comment_Create", "select Title from App_Issues"); }
    void RunJob(string job) { _scheduler.Execute(job); }
    public void Nightly() { RunJob("App_Issue_Get"); }
} }'''


def test_a_call_of_the_interface_runs_what_its_implementation_runs() -> None:
    graph = graph_of({"Executor.cs": EXECUTOR})
    edge = edges_from(graph, "CreateComment")[("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")]
    assert edge["helper"] == "cs:Data.ISqlExecutor.ExecuteCommandAsync|METHOD" and not edge.get("guess")
    assert edge["implementation"] == "cs:Data.SqlExecutor.ExecuteCommandAsync|METHOD"


# `new` hides a base's method, it does not override it; an interface with two implementations runs either.
HIDDEN = '''using System.Data.SqlClient;
namespace Data {
public class FileStore { public void Save(string name) { System.IO.File.WriteAllText(name, "x"); } }
public class SqlStore : FileStore { public new void Save(string name) { new SqlCommand(name).ExecuteNonQuery(); } }
public class BaseStore { public virtual void Keep(string name) { } }
public class SqlKeep : BaseStore { public override void Keep(string name) { new SqlCommand(name).ExecuteNonQuery(); } }
public interface ISource { void Load(string name); }
public class SqlSource : ISource { public void Load(string name) { new SqlCommand(name).ExecuteReader(); } }
public class CsvSource : ISource { public void Load(string name) { System.IO.File.ReadAllText(name); } }
public partial class SqlProvider {
    FileStore _files; SqlStore _sql; BaseStore _kept; ISource _source;
    public void Hidden() { _files.Save("App_Issue_Get"); }
    public void Own() { _sql.Save("App_Issue_Get"); }
    public void Overridden() { _kept.Keep("App_Issue_Get"); }
    public void Either() { _source.Load("App_Comment_Create"); }
} }'''


def test_a_method_hiding_a_base_one_lends_it_no_sql_and_one_of_several_implementations_is_a_guess() -> None:
    graph = graph_of({"Hidden.cs": HIDDEN})
    get, create = ("CALLS", "sql:dbo.App_Issue_Get|PROCEDURE"), ("CALLS", "sql:dbo.App_Comment_Create|PROCEDURE")
    assert not edges_from(graph, "Hidden")  # C# runs FileStore.Save, which writes a file
    assert not edges_from(graph, "Own")[get].get("guess")
    overridden = edges_from(graph, "Overridden")[get]  # the virtual base's own body may run instead
    assert overridden["guess"] is True and overridden["implementation"] == "cs:Data.SqlKeep.Keep|METHOD"
    either = edges_from(graph, "Either")[create]
    assert either["guess"] is True and either["helper"] == "cs:Data.ISource.Load|METHOD"
    assert either["implementation"] == "cs:Data.SqlSource.Load|METHOD"


def test_a_static_call_of_an_extension_runs_its_text_not_its_receiver() -> None:
    edges = edges_from(graph_of({"Executor.cs": EXECUTOR}), "Static")
    assert set(edges) == {("READS", "sql:dbo.App_Issues|TABLE")}


def test_a_text_only_a_call_name_runs_is_a_guess() -> None:
    edge = edges_from(graph_of({"Executor.cs": EXECUTOR}), "Nightly")[("CALLS", "sql:dbo.App_Issue_Get|PROCEDURE")]
    assert edge["guess"] is True and edge["helper"] == "cs:Data.SqlProvider.RunJob|METHOD"


def test_two_method_groups_passed_to_one_invoker_are_both_called() -> None:
    graph = graph_of({"Groups.cs": '''using System;
namespace Data { public partial class SqlProvider {
    void Use(Action f) { f(); }
    void A() { }
    void B() { }
    public void Caller() { Use(A); Use(B); }
} }'''})
    assert graph.has_edge("cs:Data.SqlProvider.Caller|METHOD", "cs:Data.SqlProvider.A|METHOD", "CALLS")
    assert graph.has_edge("cs:Data.SqlProvider.Caller|METHOD", "cs:Data.SqlProvider.B|METHOD", "CALLS")


def test_the_text_follows_the_receiver_or_the_connection_a_static_form_passes_first() -> None:
    """Dapper and EF Core run the text that follows the connection: the receiver of `conn.Query(sql)`,
    the first argument of the static `SqlMapper.Query(conn, sql)` / `ExecuteSqlRaw(db.Database, sql)`."""
    parsed = parse_csharp("Forms.cs", '''using Dapper;
namespace Data { public class Forms {
    void Instance(IDbConnection connection, string sql) { connection.Query(sql); }
    void StaticDapper(IDbConnection connection, string sql) { SqlMapper.Query(connection, sql); }
    void StaticEf(DbContext context, string sql) { RelationalDatabaseFacadeExtensions.ExecuteSqlRaw(context.Database, sql); }
    void ConnectionOnly(string connectionString) { SqlMapper.Query(connectionString); }
} }''')
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:Data.Forms.Instance|METHOD"]["sql_parameters"] == [1]
    assert attrs["cs:Data.Forms.StaticDapper|METHOD"]["sql_parameters"] == [1]
    assert attrs["cs:Data.Forms.StaticEf|METHOD"]["sql_parameters"] == [1]
    assert "sql_parameters_guessed" not in attrs["cs:Data.Forms.StaticEf|METHOD"]  # `ExecuteSqlRaw` says SQL
    assert "sql_parameters" not in attrs["cs:Data.Forms.ConnectionOnly|METHOD"]


def test_the_connection_is_told_by_its_declared_type_or_a_static_helpers_first_string() -> None:
    """A `transactionSql` text is SQL (its name only contains a connection's word); a `cs` passed first
    to a static helper with a second string is the connection; a parameter typed a connection is one."""
    parsed = parse_csharp("Connections.cs", '''using System.Data; using Dapper;
namespace Data { public class Ledger {
    IDbConnection _db;
    int Run(string transactionSql, object args) { return _db.Execute(transactionSql, args); }
    static IDataReader Daab(string cs, string proc) { return SqlHelper.ExecuteReader(cs, proc); }
    static int Typed(IDbConnection ledger, string sql) { return SqlMapper.Execute(ledger, sql); }
    int Scoped(string sql) { using (var link = new SqlConnection("x")) { return Execute(link, sql); } }
    int Inherited(string sql) { return Execute(_baseConnection, sql); }  // a base's field: its name says
} }''')
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:Data.Ledger.Run|METHOD"]["sql_parameters"] == [0]
    assert attrs["cs:Data.Ledger.Daab|METHOD"]["sql_parameters"] == [1]
    assert attrs["cs:Data.Ledger.Typed|METHOD"]["sql_parameters"] == [1]
    assert attrs["cs:Data.Ledger.Scoped|METHOD"]["sql_parameters"] == [0]
    assert attrs["cs:Data.Ledger.Inherited|METHOD"]["sql_parameters"] == [0]


def test_a_command_type_passed_to_a_call_that_is_no_data_access_gives_only_a_guess() -> None:
    parsed = parse_csharp("Tracing.cs", '''using System.Data;
namespace Data { public class Tracing {
    void Note(string entity) { Metrics.Count(CommandType.StoredProcedure, entity); }
    void Daab(string conn, string proc) { SqlHelper.ExecuteNonQuery(conn, CommandType.StoredProcedure, proc); }
    void Own(IDbCommand c, string text) { Prepare(c, CommandType.Text, text); }
} }''')
    attrs = {n.id: n.attrs for n in parsed.nodes}
    assert attrs["cs:Data.Tracing.Note|METHOD"]["sql_parameters_guessed"] == [0]
    for sure in ("Daab", "Own"):  # named for data access, or made on a command
        assert attrs[f"cs:Data.Tracing.{sure}|METHOD"]["sql_parameters"] == [1]
        assert "sql_parameters_guessed" not in attrs[f"cs:Data.Tracing.{sure}|METHOD"]
