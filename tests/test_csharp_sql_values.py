"""The values of SQL strings built at run time: `String.Format` filled with its arguments, a
string parameter bound to what the type's own calls pass it (a `foreach` over a readonly list of
names, a constant, a caller's parameter), and the READS / WRITES each value makes, each edge
saying how it was made (`via="argument"`, the value, every value, a guess beside the others)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.model import ParsedFile
from ragstream.index.sql.access import table_access
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE [HangFire].[Job] (Id INT, ExpireAt DATETIME);
CREATE TABLE [HangFire].[Hash] (Id INT, ExpireAt DATETIME);
CREATE TABLE [HangFire].[Counter] (Id INT, ExpireAt DATETIME);
CREATE TABLE [HangFire].[State] (Id INT, JobId INT, CreatedAt DATETIME);
"""

# The shape of Hangfire's ExpirationManager: each table of a readonly list is cleaned by a query
# a template helper builds and `String.Format` fills with the table's name.
EXPIRATION = '''using System.Globalization;
namespace Jobs { class Expiration {
    private static readonly string[] Tables = { "Job", "Hash", "Missing" };
    private static readonly string[] Words = { "alpha", "beta" };
    private const string Counters = "Counter";

    void Run(Storage storage) {
        foreach (var table in Tables) { Cleanup(storage, GetExpireQuery(storage, table), table); }
        Cleanup(storage, GetExpireQuery(storage, Counters), Counters);
        foreach (var word in Words) { Log(Describe(word)); }
    }
    private void Cleanup(Storage storage, string query, string table) { Execute(storage, query); }
    private static string GetExpireQuery(Storage storage, string table) {
        return String.Format(CultureInfo.InvariantCulture, storage.GetQueryFromTemplate(static schemaName => $@"
set deadlock_priority low;
delete top (@count) T from [{schemaName}].[{{0}}] T with (forceseek)
where ExpireAt < @now;"), table);
    }
    private static string Describe(string word) { return $"select * from [{word}] where 1 = 0"; }
    private static string Unused(string table) { return string.Format("delete from {0} where Id = @id", table); }
} }'''


def sql_references(parsed: ParsedFile, method: str) -> list:
    return [r for r in parsed.references if r.target_language == "sql" and r.source.endswith(f".{method}|METHOD")]


def graph_of(cs: dict[str, str], sql: str = SCHEMA) -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in cs.items()] + [parse_sql("Install.sql", sql, "tsql")]
    graph, _ = build_graph(files)
    return graph


def table_edges(graph: nx.MultiDiGraph, method: str) -> dict[tuple[str, str], dict]:
    return {(data["type"], target): data for source, target, data in graph.edges(data=True)
            if source.endswith(f".{method}|METHOD") and data["type"] in ("READS", "WRITES")}


def test_a_parameter_bound_by_a_foreach_over_a_readonly_list_writes_each_table_as_a_guess():
    parsed = parse_csharp("Expiration.cs", EXPIRATION)
    written = {r.target: r.attrs for r in sql_references(parsed, "GetExpireQuery")}
    # every value the type's calls pass: the list's three names and the constant
    assert set(written) == {"Job", "Hash", "Missing", "Counter"}
    job = written["Job"]
    assert job["via"] == "argument" and job["parameter"] == "table" and job["value"] == "Job"
    assert job["values"] == ["Job", "Hash", "Missing", "Counter"]
    assert job["guess"] is True and job["candidates"] == ["Counter", "Hash", "Job", "Missing"]
    assert job["operations"] == ["DELETE"]
    # a value is a guess at a name: an edge only to a table the repository defines
    assert not any(r.external for r in sql_references(parsed, "GetExpireQuery"))
    graph = graph_of({"Expiration.cs": EXPIRATION})
    edges = table_edges(graph, "GetExpireQuery")
    assert set(edges) == {("WRITES", "sql:HangFire.Job|TABLE"), ("WRITES", "sql:HangFire.Hash|TABLE"),
                          ("WRITES", "sql:HangFire.Counter|TABLE")}
    assert edges[("WRITES", "sql:HangFire.Hash|TABLE")]["guess"] is True
    assert not any("Missing" in node for node in graph)


def test_words_that_name_no_table_make_no_table_and_an_unpassed_parameter_no_edge():
    graph = graph_of({"Expiration.cs": EXPIRATION})
    # `Describe` reads `[alpha]` / `[beta]` with the values passed: no such tables, no edges, no nodes
    assert table_edges(graph, "Describe") == {}
    assert not any(word in node.lower() for node in graph for word in ("alpha", "beta"))
    # nothing calls `Unused`: its parameter has no value, so its SQL names no table at all
    parsed = parse_csharp("Expiration.cs", EXPIRATION)
    assert sql_references(parsed, "Unused") == []
    assert not any("@p" in r.target or r.target == "table" for r in parsed.references if r.target_language == "sql")


def test_one_value_is_inferred_not_a_guess_and_a_callers_parameter_passes_its_own_values():
    source = '''namespace N { class Store {
        const string Orders = "Order";
        public void Save(IDbConnection c) { Write(c, Orders); }
        private void Write(IDbConnection c, string table) { Run(c, table); }
        private void Run(IDbConnection c, string name) { c.Execute($"insert into dbo.[{name}] (Id) values (@id)"); }
    } }'''
    parsed = parse_csharp("Store.cs", source)
    [run] = sql_references(parsed, "Run")
    assert (run.edge_type, run.target) == ("WRITES", "dbo.Order")
    assert run.attrs == {"via": "argument", "operations": ["INSERT"], "parameter": "name", "value": "Order",
                         "values": ["Order"]}
    graph = graph_of({"Store.cs": source}, "CREATE TABLE dbo.[Order] (Id INT);")
    [(edge, data)] = table_edges(graph, "Run").items()
    assert edge == ("WRITES", "sql:dbo.Order|TABLE") and "guess" not in data
    assert data["resolution"] == "inferred"  # the name a call's value made


def test_a_parameter_some_call_passes_an_unknown_value_stays_unbound():
    """`CleanAny` passes what its caller gives it: `Delete`'s table may be anything, so the
    `"Job"` another call passes says nothing certain about what it deletes."""
    parsed = parse_csharp("Cleaner.cs", '''namespace Jobs { public class Cleaner {
        public void CleanJobs(Db db) { Delete(db, "Job"); }
        public void CleanAny(Db db, string userTable) { Delete(db, userTable); }
        private void Delete(Db db, string table) { db.Execute($"DELETE FROM dbo.{table} WHERE Id = @id"); }
    } }''')
    assert not any(r.target.endswith("Job") for r in sql_references(parsed, "Delete"))


def test_values_flow_only_from_the_types_own_call_sites_that_fit_the_parameters():
    source = '''namespace N {
    class Store {
        private string Query(string table) { return "delete from " + table; }
        private string Query(string table, string extra) { return "select * from " + table + extra; }
        public void A() { Query("Job", " where 1 = 1"); }
    }
    class Other { public void B(Store s) { s.Query("Hash"); Query("Set"); } string Query(string t) { return t; } }
    }'''
    parsed = parse_csharp("Store.cs", source)
    one = [r for r in parsed.references if r.target_language == "sql" and r.source.endswith("Query(string)|METHOD")]
    two = [r for r in parsed.references
           if r.target_language == "sql" and r.source.endswith("Query(string,string)|METHOD")]
    # the one-argument overload is called by no method of Store: `s.Query("Hash")` is another
    # type's call, resolved only in the graph, and `Other.Query("Set")` is Other's own method
    assert one == []
    assert [(r.edge_type, r.target, r.attrs["value"]) for r in two] == [("READS", "Job", "Job")]


def test_string_format_fills_its_items_and_keeps_escaped_braces():
    source = '''namespace N { class Report {
        const string Table = "Invoice";
        public void Run(IDbConnection c, string order) {
            c.Query<int>(string.Format("select Id from dbo.{0} order by Id {1}", Table, order));
            c.Execute(String.Format(CultureInfo.InvariantCulture, "update {0} set Note = '{{x}}'", "Ledger"));
        }
    } }'''
    parsed = parse_csharp("Report.cs", source)
    [method] = [n for n in parsed.nodes if n.kind == "METHOD"]
    assert method.attrs["inline_sql"] == ["select Id from dbo.Invoice order by Id @p0",
                                          "update Ledger set Note = '{x}'"]
    assert {(r.edge_type, r.target) for r in sql_references(parsed, "Run")} == {
        ("READS", "dbo.Invoice"), ("WRITES", "Ledger")}


def test_a_cte_defined_before_a_statement_that_did_not_parse_with_it_is_no_table():
    parsed = parse_csharp("Trim.cs", '''namespace N { class Trim { void Run(Storage s) {
        var query = s.GetQueryFromTemplate(static schemaName => $@";with cte as (
            select row_number() over (order by Id desc) as row_num from [{schemaName}].List with (xlock, forceseek))
        delete from cte where row_num not between @start and @end");
        s.Run(query);
    } } }''')
    assert {(r.edge_type, r.target) for r in sql_references(parsed, "Run")} == {("READS", "List")}


def test_a_cte_hides_a_table_of_its_name_only_in_its_own_statement():
    """A CTE is scoped to the one statement it precedes: the `UPDATE Orders` after a statement
    that used a CTE named `Orders` writes the table."""
    found = table_access("""CREATE PROCEDURE dbo.Archive AS
BEGIN
  WITH Orders AS (SELECT Id FROM dbo.OrderStaging WHERE Done = 1)
  SELECT * INTO #t FROM Orders;
  UPDATE Orders SET Archived = 1 WHERE Id IN (SELECT Id FROM #t);
END""", "tsql")
    assert found.writes == ("Orders",) and found.reads == ("dbo.OrderStaging",)


def test_delete_and_update_top_write_their_target_through_its_alias():
    assert table_access("delete top (@count) T from [Job] T with (forceseek) where ExpireAt < @now "
                        "option (loop join, optimize for (@count = 20000));", "tsql").writes == ("Job",)
    # not parseable by sqlglot (the hint-less alias with OPTION): the fallback reads the alias too
    found = table_access("delete top (@count) T from [Set] T where ExpireAt < @now option (loop join);", "tsql")
    assert (found.reads, found.writes, found.operations) == ((), ("Set",), (("Set", ("DELETE",)),))
    assert table_access("delete top (10) from dbo.Job where Id < 5", "tsql").writes == ("dbo.Job",)
    # a keyword is still no table in the fallback
    assert table_access("delete from set where x option(loop join)", "tsql").writes == ()


def test_a_procedure_name_passed_to_a_helper_calls_that_procedure():
    source = '''namespace N { class Invoices {
        public void Create(IDbConnection c) { Run(c, "dbo.Invoice_Create"); }
        public void Archive(IDbConnection c) { Run(c, "dbo.Invoice_Gone"); }
        private void Run(IDbConnection c, string procedure) {
            c.Execute(procedure, commandType: CommandType.StoredProcedure);
        }
    } }'''
    graph = graph_of({"Invoices.cs": source}, "CREATE TABLE dbo.Invoice (Id INT);\nGO\n"
                     "CREATE PROCEDURE dbo.Invoice_Create AS INSERT INTO dbo.Invoice (Id) VALUES (1);")
    called = {target: data for source_, target, data in graph.edges(data=True)
              if source_.endswith("Invoices.Run|METHOD") and data["type"] == "CALLS"}
    # the procedure the repository defines, a guess beside the other name; none for the missing one
    assert list(called) == ["sql:dbo.Invoice_Create|PROCEDURE"]
    edge = called["sql:dbo.Invoice_Create|PROCEDURE"]
    assert (edge["via"], edge["value"], edge["guess"]) == ("argument", "dbo.Invoice_Create", True)
    assert edge["candidates"] == ["dbo.Invoice_Create", "dbo.Invoice_Gone"]


def test_a_concatenation_of_thousands_of_literals_is_one_sql_text_not_a_stack_overflow():
    # generated code concatenates a long script line by line; `+` nests to the left, one level a term
    terms = " +\n".join(f'"{word} "' for word in ["select Id from dbo.Invoice where Id in (0"]
                        + [f", {i}" for i in range(5000)] + [")"])
    source = f'''namespace N {{ class Big {{
        public void Run(IDbConnection c) {{ c.Query<int>({terms}); }}
    }} }}'''
    parsed = parse_csharp("Big.cs", source)
    [method] = [n for n in parsed.nodes if n.kind == "METHOD"]
    [text] = method.attrs["inline_sql"]
    assert text.startswith("select Id from dbo.Invoice where Id in (0 , 0 , 1 ") and text.endswith(", 4999 ) ")
    assert {(r.edge_type, r.target) for r in sql_references(parsed, "Run")} == {("READS", "dbo.Invoice")}
