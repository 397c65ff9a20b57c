"""Does the C# reach the SQL (`index/sql_coverage`): the counts over a graph built by the real
parsers from a small application (procedures with a C# caller, tables with a C# reader or writer,
methods touching SQL, names left EXTERNAL, CREATE statements sqlglot could not parse), the
warning when C# and SQL are both there and no edge joins them, and the report a build's manifest
keeps for every front end (`ragstream index`, the workbench, the MCP `index_status`)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.model import text_file
from ragstream.index.sql.parser import parse_sql
from ragstream.index.sql_coverage import SqlCoverage, sql_coverage

SCHEMA = """
CREATE TABLE dbo.Orders (Id INT, Total MONEY);
GO
CREATE TABLE dbo.Audit (Id INT, Note NVARCHAR(100));
GO
CREATE TABLE dbo.Archive (Id INT, INDEX ix NONCLUSTERED COLUMNSTORE (Id)) WITH (MEMORY_OPTIMIZED = ON)
GO
CREATE PROCEDURE dbo.Order_Get @Id INT AS SELECT * FROM dbo.Orders WHERE Id = @Id;
GO
CREATE PROCEDURE dbo.Order_Purge AS DELETE FROM dbo.Orders; SELECT name FROM sys.tables;
GO
CREATE PROCEDURE dbo.Audit_Broken AS BEGIN SELECT ((( FROM dbo.Audit END
GO
CREATE STATISTICS ST_Orders_1 ON dbo.Orders (Id, Total) WITH SOME OPTION NOBODY READS
"""

# One method runs a procedure, one reads a table with SQL text; the third runs nothing.
DIRECT = '''using System.Data;
using System.Data.SqlClient;
namespace Data { public class OrderStore {
    public void Get(SqlConnection connection) {
        var command = new SqlCommand("dbo.Order_Get", connection);
        command.CommandType = CommandType.StoredProcedure;
        command.ExecuteReader();
    }
    public void Count(SqlConnection connection) {
        var command = new SqlCommand("select count(*) from dbo.Orders", connection);
        command.ExecuteScalar();
    }
    public int Twice(int n) { return n * 2; }
} }'''

# The same data access through a helper of a library outside the repository, whose parameters the
# resolver cannot follow: every procedure and method is indexed, no edge joins them.
THROUGH_A_LIBRARY = '''namespace Data { public class OrderStore {
    private readonly Db _db;
    public void Get(int id) { _db.Run(Names.Of("Order", "Get"), id); }
} }'''


def _graph(cs: str, *sql: object) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp("Data/OrderStore.cs", cs), parse_sql("Install.sql", SCHEMA, "tsql"), *sql])
    return graph


def test_the_counts_of_a_graph_whose_csharp_reaches_the_sql():
    coverage = sql_coverage(_graph(DIRECT, text_file("Old.sql", "CREATE NOTHING ((((", "no statement parses")))
    assert (coverage.procedures, coverage.procedures_called) == (3, 1)  # Order_Get; not Order_Purge, Audit_Broken
    # Orders read by `Count`; Audit has no C# reader; Archive is in no graph (its CREATE did not parse)
    assert (coverage.tables, coverage.tables_used) == (2, 1)
    assert (coverage.csharp_methods, coverage.csharp_methods_into_sql) == (3, 2)
    assert (coverage.unresolved_references, coverage.unresolved_names) == (1, 1)  # sys.tables
    # Archive: made no node; Audit_Broken: read from its header, its body not parsed; statistics are no object
    assert (coverage.unparsed_creates, coverage.unparsed_lost) == (2, 1)
    assert coverage.sql_files_as_text == 1
    assert coverage.warning is None
    lines = coverage.lines()
    assert lines[0] == ("C# -> SQL: 1 of 3 procedures have a C# caller; 1 of 2 tables and views a C# reader or "
                        "writer; 2 C# methods touch SQL")
    assert "2 CREATE statements not parsed (1 of them in no graph)" in lines[1]
    assert len(lines) == 2


def test_csharp_and_sql_without_an_edge_between_them_warn():
    coverage = sql_coverage(_graph(THROUGH_A_LIBRARY))
    assert (coverage.procedures, coverage.procedures_called, coverage.csharp_methods_into_sql) == (3, 0, 0)
    assert coverage.warning is not None and "no C# -> SQL edge was made" in coverage.warning
    assert coverage.lines()[-1] == f"warning: {coverage.warning}"


def test_no_warning_without_sql_or_without_csharp():
    csharp_only, _ = build_graph([parse_csharp("Data/OrderStore.cs", THROUGH_A_LIBRARY)])
    assert sql_coverage(csharp_only).warning is None
    assert sql_coverage(csharp_only).lines() == []  # nothing to say of a database there is none of
    sql_only, _ = build_graph([parse_sql("Install.sql", SCHEMA, "tsql")])
    assert sql_coverage(sql_only).warning is None
    assert sql_coverage(sql_only).lines()[0].startswith("C# -> SQL: 0 of 3 procedures")


def test_the_counts_round_trip_through_a_manifest():
    coverage = sql_coverage(_graph(THROUGH_A_LIBRARY))
    assert SqlCoverage.from_dict(coverage.as_dict()) == coverage
    assert SqlCoverage.from_dict({}) is None  # an index built before the counts were kept
