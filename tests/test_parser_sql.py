"""SQL parser: fixture files parsed with real sqlglot, table access on snippets, failure modes."""
from __future__ import annotations

from pathlib import Path

import pytest

from ragstream.errors import ConfigError, IndexingError
from ragstream.index.model import ParsedFile
from ragstream.index.sql.parser import detect_dialect, parse_sql
from ragstream.index.sql.split import split_statements
from ragstream.index.sql.access import TableAccess, table_access

REPO = Path(__file__).parent / "fixtures" / "sample_repo"


def parse_fixture(rel: str) -> ParsedFile:
    return parse_sql(rel, (REPO / rel).read_text(encoding="utf-8"))


def node(parsed: ParsedFile, node_id: str):
    return next(n for n in parsed.nodes if n.id == node_id)


def defines(parsed: ParsedFile) -> set[tuple[str, str]]:
    assert {e.type for e in parsed.edges} == {"DEFINES"}
    return {(e.source, e.target) for e in parsed.edges}


def references(parsed: ParsedFile) -> set[tuple[str, str, str]]:
    return {(r.source, r.edge_type, r.target) for r in parsed.references}


def columns(table: str, *names: str) -> set[str]:
    return {f"sql:{table}.{name}|COLUMN" for name in names}


# --- schema.sql ---------------------------------------------------------------------------

SCHEMA_TABLES = {
    "dbo.Customers": ("CustomerId", "Name", "Email"),
    "dbo.Invoices": ("InvoiceId", "CustomerId", "Total", "Status", "IssuedAt"),
    "dbo.InvoiceLines": ("InvoiceLineId", "InvoiceId", "Description", "Amount"),
    "dbo.Payments": ("PaymentId", "InvoiceId", "Amount", "PaidAt"),
}


def test_schema_nodes_and_defines():
    parsed = parse_fixture("db/schema.sql")
    root = "file:db/schema.sql|FILE"
    tables = {f"sql:{name}|TABLE" for name in SCHEMA_TABLES}
    all_columns = set().union(*(columns(t, *cols) for t, cols in SCHEMA_TABLES.items()))
    view = "sql:dbo.vw_OpenInvoices|VIEW"

    assert parsed.root_id == root and parsed.language == "sql"
    assert {n.id for n in parsed.nodes} == {root, view} | tables | all_columns
    assert defines(parsed) == (
        {(root, t) for t in tables | {view}}
        | {(f"sql:{t}|TABLE", c) for t, cols in SCHEMA_TABLES.items() for c in columns(t, *cols)}
    )
    assert parsed.warnings == []


def test_schema_references():
    parsed = parse_fixture("db/schema.sql")
    assert references(parsed) == {
        ("sql:dbo.Invoices|TABLE", "FOREIGN_KEY", "dbo.Customers"),
        ("sql:dbo.InvoiceLines|TABLE", "FOREIGN_KEY", "dbo.Invoices"),
        ("sql:dbo.Payments|TABLE", "FOREIGN_KEY", "dbo.Invoices"),
        ("sql:dbo.vw_OpenInvoices|VIEW", "READS", "dbo.Invoices"),
        ("sql:dbo.vw_OpenInvoices|VIEW", "READS", "dbo.Customers"),
    }
    by_key = {(r.source, r.edge_type, r.target): r for r in parsed.references}
    alter_fk = by_key[("sql:dbo.Payments|TABLE", "FOREIGN_KEY", "dbo.Invoices")]
    assert alter_fk.attrs == {"columns": ["InvoiceId"], "ref_columns": ["InvoiceId"]}
    assert alter_fk.line == 50 and alter_fk.target_kinds == ("TABLE",)
    assert alter_fk.candidates == ("dbo.Invoices",) and alter_fk.external
    inline_fk = by_key[("sql:dbo.Invoices|TABLE", "FOREIGN_KEY", "dbo.Customers")]
    assert (inline_fk.line, inline_fk.attrs["columns"]) == (22, ["CustomerId"])
    read = by_key[("sql:dbo.vw_OpenInvoices|VIEW", "READS", "dbo.Customers")]
    assert read.target_kinds == ("TABLE", "VIEW", "FUNCTION") and read.target_language == "sql"
    assert read.line == 58


def test_schema_table_and_column_details():
    parsed = parse_fixture("db/schema.sql")
    customers = node(parsed, "sql:dbo.Customers|TABLE")  # declared as [dbo].[Customers]
    assert (customers.name, customers.start_line, customers.end_line) == ("dbo.Customers", 12, 16)
    assert customers.attrs == {"primary_key": ["CustomerId"]}
    assert customers.docstring == (
        "Customers who receive invoices.\nEmail is optional: some customers are billed by post."
    )
    assert node(parsed, "sql:dbo.InvoiceLines|TABLE").attrs == {"primary_key": ["InvoiceLineId"]}

    email = node(parsed, "sql:dbo.Customers.Email|COLUMN")
    assert email.attrs == {"data_type": "NVARCHAR(320)", "nullable": True, "primary_key": False}
    assert (email.start_line, email.parent) == (15, "sql:dbo.Customers|TABLE")
    key = node(parsed, "sql:dbo.Invoices.InvoiceId|COLUMN")
    assert key.attrs["primary_key"] and not key.attrs["nullable"]

    view = node(parsed, "sql:dbo.vw_OpenInvoices|VIEW")
    assert (view.start_line, view.end_line) == (54, 59)
    assert view.signature == "CREATE VIEW dbo.vw_OpenInvoices"
    assert view.parent == "file:db/schema.sql|FILE"


# --- procedures.sql -----------------------------------------------------------------------

def test_procedures_nodes_and_references():
    parsed = parse_fixture("db/procedures.sql")
    root = "file:db/procedures.sql|FILE"
    record = "sql:dbo.usp_RecordPayment|PROCEDURE"
    get = "sql:dbo.usp_GetCustomerInvoices|PROCEDURE"
    audit = "sql:dbo.usp_LogAudit|PROCEDURE"
    create = "sql:dbo.usp_CreateInvoice|PROCEDURE"

    assert {n.id for n in parsed.nodes} == {root, record, get, audit, create}
    assert defines(parsed) == {(root, record), (root, get), (root, audit), (root, create)}
    # The CTE `paid` and the temp table `#owed` are not tables.
    assert references(parsed) == {
        (record, "READS", "dbo.Invoices"),
        (record, "READS", "dbo.Payments"),
        (record, "WRITES", "dbo.Payments"),
        (record, "WRITES", "dbo.Invoices"),
        (record, "CALLS", "dbo.usp_LogAudit"),
        (get, "READS", "dbo.Invoices"),
        (get, "READS", "dbo.Customers"),
        (get, "READS", "dbo.Payments"),
        (audit, "WRITES", "dbo.AuditLog"),
        (create, "WRITES", "dbo.Invoices"),
        (create, "CALLS", "dbo.usp_LogAudit"),
    }
    call = next(r for r in parsed.references if r.edge_type == "CALLS" and r.source == record)
    assert (call.target_kinds, call.line) == (("PROCEDURE",), 23)
    lines = {(r.edge_type, r.target): r.line for r in parsed.references if r.source == record}
    assert lines[("WRITES", "dbo.Invoices")] == 21  # the UPDATE, not the first SELECT
    assert parsed.warnings == []


def test_procedure_spans_signatures_and_docstrings():
    parsed = parse_fixture("db/procedures.sql")
    record = node(parsed, "sql:dbo.usp_RecordPayment|PROCEDURE")
    assert (record.start_line, record.end_line) == (4, 31)
    assert record.signature == (
        "CREATE PROCEDURE dbo.usp_RecordPayment @InvoiceId INT, @Amount DECIMAL(10,2)"
    )
    assert record.docstring == "Records a payment and marks the invoice paid once it is covered."

    get = node(parsed, "sql:dbo.usp_GetCustomerInvoices|PROCEDURE")
    assert (get.name, get.start_line, get.end_line) == ("dbo.usp_GetCustomerInvoices", 35, 58)
    assert get.signature == "create procedure [dbo].[usp_GetCustomerInvoices]\n    @CustomerId INT"

    audit = node(parsed, "sql:dbo.usp_LogAudit|PROCEDURE")
    assert (audit.start_line, audit.end_line) == (62, 67)


# --- reporting_pg.sql ---------------------------------------------------------------------

def test_postgres_file():
    parsed = parse_fixture("db/reporting_pg.sql")
    root = "file:db/reporting_pg.sql|FILE"
    table = "sql:reporting.monthly_totals|TABLE"
    function = "sql:reporting.refresh_monthly_totals|FUNCTION"
    cols = columns("reporting.monthly_totals", "month", "total")

    assert {n.id for n in parsed.nodes} == {root, table, function} | cols
    assert defines(parsed) == {(root, table), (root, function)} | {(table, c) for c in cols}
    assert references(parsed) == {
        (function, "WRITES", "reporting.monthly_totals"),
        (function, "READS", "invoices"),
    }
    assert node(parsed, table).attrs == {"primary_key": ["month"]}
    total = node(parsed, "sql:reporting.monthly_totals.total|COLUMN")
    assert total.attrs == {"data_type": "DECIMAL(12, 2)", "nullable": False, "primary_key": False}
    body = node(parsed, function)
    assert (body.start_line, body.end_line) == (11, 28)
    assert body.signature == (
        "CREATE OR REPLACE FUNCTION reporting.refresh_monthly_totals()\n"
        "RETURNS integer\n"
        "LANGUAGE plpgsql"
    )
    lines = {r.target: r.line for r in parsed.references}
    assert lines == {"reporting.monthly_totals": 18, "invoices": 22}


# --- table_access -------------------------------------------------------------------------

@pytest.mark.parametrize(("sql", "dialect", "reads", "writes"), [
    pytest.param("WITH recent AS (SELECT * FROM dbo.Invoices) SELECT * FROM recent "
                 "JOIN [dbo].[Customers] c ON 1 = 1", "tsql",
                 ("dbo.Customers", "dbo.Invoices"), (), id="cte-and-brackets"),
    pytest.param("SELECT * INTO #tmp FROM dbo.Invoices; SELECT * FROM #tmp", "tsql",
                 ("dbo.Invoices",), (), id="temp-table"),
    pytest.param("DECLARE @t TABLE (id INT); INSERT INTO @t SELECT id FROM dbo.A", "tsql",
                 ("dbo.A",), (), id="table-variable"),
    pytest.param("MERGE INTO dbo.Target AS t USING dbo.Source AS s ON t.id = s.id "
                 "WHEN MATCHED THEN UPDATE SET t.a = s.a "
                 "WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a);", "tsql",
                 ("dbo.Source",), ("dbo.Target",), id="merge"),
    pytest.param("UPDATE i SET i.Status = 'Paid' FROM dbo.Invoices i "
                 "JOIN dbo.Payments p ON p.InvoiceId = i.InvoiceId WHERE i.InvoiceId = @id", "tsql",
                 ("dbo.Payments",), ("dbo.Invoices",), id="update-from-alias"),
    pytest.param("DELETE i FROM dbo.Invoices i JOIN dbo.Customers c ON c.CustomerId = i.CustomerId",
                 "tsql", ("dbo.Customers",), ("dbo.Invoices",), id="delete-alias"),
    pytest.param("INSERT INTO archive (id) SELECT id FROM orders", "generic",
                 ("orders",), ("archive",), id="insert-select"),
    pytest.param("SELECT * FROM orders WHERE id = $1 AND status = $2", "postgres",
                 ("orders",), (), id="postgres-params"),
    pytest.param("SELECT * FROM Invoices WHERE CustomerId = @CustomerId; "
                 "UPDATE Invoices SET Status = @Status WHERE InvoiceId = @Id", None,
                 ("Invoices",), ("Invoices",), id="dapper-params"),
    pytest.param("SELECT * FROM orders WHERE id = :id OR id = {0}", None,
                 ("orders",), (), id="named-and-format-params"),
    pytest.param("SELEC * FRM x WHERE ((( INSERT INTO dbo.Y SELECT * FROM dbo.Z JOIN [w].[q] ON",
                 None, ("dbo.Z", "w.q"), ("dbo.Y",), id="unparsable-fallback"),
    pytest.param("IF EXISTS (SELECT 1 FROM dbo.A WHERE x = 1) UPDATE dbo.B SET y = 2 "
                 "ELSE DELETE FROM dbo.C", "tsql",
                 ("dbo.A",), ("dbo.B", "dbo.C"), id="if-else-without-semicolons"),
    pytest.param("SELECT 1 FROM a\nSELECT 2 FROM b\nUPDATE c SET x = 1\nTRUNCATE TABLE d", "tsql",
                 ("a", "b"), ("c", "d"), id="statements-without-semicolons"),
])
def test_table_access(sql, dialect, reads, writes):
    access = table_access(sql, dialect)
    assert (access.reads, access.writes) == (reads, writes)


def test_table_access_calls_and_bad_input():
    for dialect in ("tsql", None):  # sqlglot's default dialect cannot parse EXEC: regex fallback
        access = table_access("EXEC dbo.usp_LogAudit @Action = 'x'", dialect)
        assert access == TableAccess(reads=(), writes=(), calls=("dbo.usp_LogAudit",))
    assert table_access("EXEC ('SELECT * FROM dbo.Secret')", "tsql") == TableAccess((), ())
    for bad in ("", "this is not sql", "SELECT 'unterminated", "((("):
        assert table_access(bad) == TableAccess(reads=(), writes=())


# --- failure modes, splitting, dialects ---------------------------------------------------

def test_broken_statement_is_skipped_with_a_warning():
    text = (
        "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
        "\n"
        "CREATE TABLE broken (id INTEGER NOT NULL\n"
        ";\n"
        "/* a view; with a semicolon in a comment */\n"
        "CREATE VIEW active_accounts AS\n"
        "SELECT id, 'a;b' AS s FROM accounts WHERE name <> ';';\n"
    )
    parsed = parse_sql("db/mixed.sql", text)
    assert {n.id for n in parsed.nodes} == {
        "file:db/mixed.sql|FILE", "sql:accounts|TABLE", "sql:accounts.id|COLUMN",
        "sql:accounts.name|COLUMN", "sql:active_accounts|VIEW",
    }
    assert references(parsed) == {("sql:active_accounts|VIEW", "READS", "accounts")}
    assert len(parsed.warnings) == 1 and parsed.warnings[0].startswith("db/mixed.sql:3:")
    view = node(parsed, "sql:active_accounts|VIEW")
    assert (view.start_line, view.end_line) == (6, 7)


@pytest.mark.parametrize("text", [
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\nSed do eiusmod; tempor.",
    "hello",
    "SELECT 'never closed",
])
def test_garbage_file_raises(text):
    with pytest.raises(IndexingError):
        parse_sql("notes.sql", text)


def test_empty_file_is_only_a_file_node():
    for text in ("", "-- nothing here yet\n"):
        assert [n.id for n in parse_sql("db/empty.sql", text).nodes] == ["file:db/empty.sql|FILE"]


def test_split_statements_lines():
    text = (
        "-- one; two\n"
        "SELECT ';' AS a FROM t;\n"
        "GO\n"
        "CREATE PROCEDURE p AS\n"
        "BEGIN\n"
        "  SELECT 1; SELECT CASE WHEN 1 = 1 THEN 2 END;\n"
        "END\n"
        "SELECT 3\n"
    )
    statements, problems = split_statements(text, "tsql")
    assert problems == []
    assert [(s.start_line, s.end_line) for s in statements] == [(2, 2), (4, 7), (8, 8)]
    assert statements[0].text == "SELECT ';' AS a FROM t"


@pytest.mark.parametrize(("rel", "dialect"), [
    ("db/schema.sql", "tsql"), ("db/procedures.sql", "tsql"), ("db/reporting_pg.sql", "postgres"),
])
def test_detect_dialect_on_fixtures(rel, dialect):
    assert detect_dialect((REPO / rel).read_text(encoding="utf-8")) == dialect


def test_detect_dialect_on_snippets():
    assert detect_dialect("CREATE TABLE t (id INT)") == "generic"
    assert detect_dialect("CREATE TABLE t (id SERIAL PRIMARY KEY)") == "postgres"
    assert detect_dialect("SELECT 1\nGO\n") == "tsql"
    assert detect_dialect("CREATE TABLE `be_Blogs` (`Id` int(10) UNSIGNED NOT NULL AUTO_INCREMENT) ENGINE=InnoDB;") \
        == "mysql"


def test_explicit_dialects_and_unknown_dialect():
    text = (REPO / "db/reporting_pg.sql").read_text(encoding="utf-8")
    assert references(parse_sql("r.sql", text, "postgres")) == references(parse_sql("r.sql", text))
    assert [n.kind for n in parse_sql("g.sql", "CREATE TABLE t (id INT)", "generic").nodes] == [
        "FILE", "TABLE", "COLUMN"]
    with pytest.raises(ConfigError) as raised:
        parse_sql("x.sql", "SELECT 1", "oracle")
    assert raised.value.where == "index.sql_dialect"


# --- issue 18: T-SQL constructs (each: the reference it must make and one it must not) -------

def tsql(text: str) -> ParsedFile:
    return parse_sql("db/x.sql", text, "tsql")


def test_table_type_and_readonly_parameter():
    parsed = tsql(
        "CREATE TYPE dbo.InvoiceLineList AS TABLE (Description NVARCHAR(200) NOT NULL,\n"
        "    Amount DECIMAL(10,2))\nGO\n"
        "CREATE PROCEDURE dbo.usp_AddLines @InvoiceId INT, @lines dbo.InvoiceLineList READONLY\n"
        "AS INSERT INTO dbo.InvoiceLines (InvoiceId, Amount) SELECT @InvoiceId, Amount FROM @lines\n"
    )
    ids = {n.id for n in parsed.nodes}
    assert {"sql:dbo.InvoiceLineList|TYPE", "sql:dbo.InvoiceLineList.Amount|COLUMN"} <= ids
    assert "sql:dbo.InvoiceLineList|TABLE" not in ids
    refs = references(parsed)
    proc = "sql:dbo.usp_AddLines|PROCEDURE"
    assert (proc, "REFERENCES", "dbo.InvoiceLineList") in refs
    assert (proc, "REFERENCES", "INT") not in refs  # built-in types are not references
    assert parsed.warnings == []


def test_trigger_on_table_reads_and_writes():
    parsed = tsql(
        "CREATE TRIGGER dbo.trg_InvoiceAudit ON dbo.Invoices AFTER INSERT, UPDATE AS\n"
        "INSERT INTO dbo.AuditLog (InvoiceId) SELECT i.InvoiceId FROM inserted i\n"
        "JOIN dbo.Customers c ON c.CustomerId = i.CustomerId\n"
    )
    trigger = node(parsed, "sql:dbo.trg_InvoiceAudit|TRIGGER")
    assert trigger.parent == "file:db/x.sql|FILE" and trigger.attrs == {"table": "dbo.Invoices"}
    refs = references(parsed)
    source = trigger.id
    assert {(source, "REFERENCES", "dbo.Invoices"), (source, "WRITES", "dbo.AuditLog"),
            (source, "READS", "dbo.Customers")} <= refs
    assert not any(target.lower() == "inserted" for _, _, target in refs)


@pytest.mark.parametrize("text", [
    "CREATE TABLE dbo.OpenInvoices AS SELECT InvoiceId, Total FROM dbo.Invoices",
    "SELECT InvoiceId, Total INTO dbo.OpenInvoices FROM dbo.Invoices",
])
def test_table_from_a_query(text):
    parsed = tsql(text)
    table = "sql:dbo.OpenInvoices|TABLE"
    assert {table, "sql:dbo.OpenInvoices.Total|COLUMN"} <= {n.id for n in parsed.nodes}
    assert references(parsed) == {(table, "READS", "dbo.Invoices")}  # and no WRITES of itself


def test_select_into_a_temp_table_is_no_table():
    parsed = tsql("SELECT InvoiceId INTO #open FROM dbo.Invoices")
    assert [n.kind for n in parsed.nodes] == ["FILE"]


def test_merge_in_a_procedure():
    parsed = tsql(
        "CREATE PROCEDURE dbo.usp_Sync AS\n"
        "MERGE INTO dbo.Target AS t USING dbo.Source AS s ON t.Id = s.Id\n"
        "WHEN MATCHED THEN UPDATE SET t.A = s.A WHEN NOT MATCHED THEN INSERT (A) VALUES (s.A);\n"
    )
    proc = "sql:dbo.usp_Sync|PROCEDURE"
    assert references(parsed) == {(proc, "WRITES", "dbo.Target"), (proc, "READS", "dbo.Source")}


def test_unnamed_foreign_keys():
    parsed = tsql(
        "CREATE TABLE dbo.A (Id INT PRIMARY KEY, BId INT FOREIGN KEY REFERENCES dbo.B(Id),\n"
        "    CId INT, FOREIGN KEY (CId) REFERENCES dbo.C(Id))\nGO\n"
        "ALTER TABLE dbo.A ADD FOREIGN KEY (DId) REFERENCES dbo.D(Id)\n"
    )
    fks = {(r.target, tuple(r.attrs["columns"])) for r in parsed.references
           if r.edge_type == "FOREIGN_KEY"}
    assert fks == {("dbo.B", ("BId",)), ("dbo.C", ("CId",)), ("dbo.D", ("DId",))}
    assert not any(r.target == "dbo.A" for r in parsed.references)


def test_table_valued_functions_and_views_are_read():
    parsed = tsql(
        "CREATE VIEW dbo.vw_Lines AS SELECT * FROM dbo.fnItems(1) f\n"
        "CROSS APPLY dbo.fnLines(f.Id) l OUTER APPLY STRING_SPLIT(f.Tags, ',') s\nGO\n"
        "CREATE PROCEDURE dbo.usp_Lines AS SELECT * FROM dbo.vw_Lines\n"
    )
    view, proc = "sql:dbo.vw_Lines|VIEW", "sql:dbo.usp_Lines|PROCEDURE"
    assert references(parsed) == {(view, "READS", "dbo.fnItems"), (view, "READS", "dbo.fnLines"),
                                  (proc, "READS", "dbo.vw_Lines")}  # no built-in STRING_SPLIT
    read = next(r for r in parsed.references if r.target == "dbo.fnItems")
    assert "FUNCTION" in read.target_kinds


def test_procedure_calls_procedures_but_not_dynamic_sql():
    parsed = tsql(
        "CREATE PROCEDURE dbo.usp_Outer @x INT AS\nBEGIN\n"
        "    EXEC dbo.Other @x;\n    EXECUTE [dbo].[Second];\n    EXEC Third @x;\n"
        "    DECLARE @sql NVARCHAR(MAX) = N'EXEC dbo.Hidden';\n"
        "    EXEC(@sql);\n    EXEC sp_executesql @sql;\nEND\n"
    )
    calls = {r.target: r.candidates for r in parsed.references if r.edge_type == "CALLS"}
    assert calls == {"dbo.Other": ("dbo.Other",), "dbo.Second": ("dbo.Second",),
                     "Third": ("Third", "dbo.Third")}  # unqualified: also tried in dbo


def test_ddl_inside_control_flow_and_schema_changes():
    parsed = tsql(
        "IF OBJECT_ID('Metadata') IS NULL\nBEGIN\n"
        "    CREATE TABLE [dbo].[Metadata] ([Id] INT NOT NULL, [Title] NVARCHAR(100))\nEND\n"
        "IF dbo.fnColumnExists('Metadata', 'Votes') = 0\n"
        "    ALTER TABLE [dbo].[Metadata] ADD Votes INT NULL\n"
        "ALTER TABLE [dbo].[Metadata] DROP COLUMN Title\n"
        "if object_id('Metadata') is not null begin exec sp_rename 'Metadata', 'QuerySets' end\n"
        "EXEC sp_rename 'QuerySets.Votes', 'VoteCount', 'COLUMN'\n"
        "DROP PROCEDURE dbo.usp_Old\n"
    )
    assert {"sql:dbo.Metadata|TABLE", "sql:dbo.Metadata.Votes|COLUMN"} <= {
        n.id for n in parsed.nodes}
    assert [(c.action, c.kind, c.name, c.new_name) for c in parsed.schema_changes] == [
        ("DROP", "COLUMN", "dbo.Metadata.Title", ""),
        ("RENAME", "", "Metadata", "QuerySets"),
        ("RENAME", "COLUMN", "QuerySets.Votes", "VoteCount"),
        ("DROP", "PROCEDURE", "dbo.usp_Old", ""),
    ]
    assert parsed.warnings == []


def test_dialect_hint_names_the_setting():
    with pytest.raises(IndexingError) as raised:
        parse_sql("notes.sql", "hello")
    assert "index.sql_dialect" in raised.value.hint


def test_tsql_objects_without_a_schema_live_in_dbo():
    parsed = parse_sql("m/001.sql", """CREATE TABLE Users (Id INT PRIMARY KEY, Name NVARCHAR(50));
GO
CREATE PROCEDURE spTouch AS UPDATE Users SET Name = 'x';
GO
ALTER TABLE Users ADD Email NVARCHAR(100);
GO
CREATE TABLE [$(Schema)].Job (Id INT);
GO
SELECT * INTO #scratch FROM Users;
""", "tsql")
    ids = {n.id for n in parsed.nodes}
    assert {"sql:dbo.Users|TABLE", "sql:dbo.Users.Id|COLUMN", "sql:dbo.Users.Email|COLUMN",
            "sql:dbo.spTouch|PROCEDURE", "sql:$(Schema).Job|TABLE"} <= ids
    assert not {i for i in ids if i in ("sql:Users|TABLE", "sql:Users.Email|COLUMN", "sql:spTouch|PROCEDURE")}
    assert all(not i.startswith("sql:dbo.#") for i in ids)  # a temporary table stays as written
    column = next(n for n in parsed.nodes if n.id == "sql:dbo.Users.Name|COLUMN")
    assert column.parent == "sql:dbo.Users|TABLE" and column.name == "dbo.Users.Name"
    # PostgreSQL's default schema is left to the script (its search_path decides)
    pg = parse_sql("p.sql", "CREATE TABLE totals (id int);", "postgres")
    assert "sql:totals|TABLE" in {n.id for n in pg.nodes}


def test_each_written_table_says_how_it_is_written():
    from ragstream.index.sql.access import table_access

    access = table_access("""
INSERT INTO dbo.Lines (a) SELECT a FROM dbo.Staging;
UPDATE l SET a = 1 FROM dbo.Ledger l JOIN dbo.Staging s ON s.a = l.a;
DELETE FROM dbo.Lines WHERE a = 0;
MERGE dbo.Totals AS t USING dbo.Staging AS s ON t.a = s.a WHEN MATCHED THEN UPDATE SET a = s.a;
TRUNCATE TABLE dbo.Staging;
""", "tsql")
    assert dict(access.operations) == {"dbo.Lines": ("DELETE", "INSERT"), "dbo.Ledger": ("UPDATE",),
                                       "dbo.Totals": ("MERGE",), "dbo.Staging": ("TRUNCATE",)}
    # SQL sqlglot cannot parse falls back to the keyword that writes
    assert table_access("INSERT INTO dbo.Lines VALUES (", "tsql").operations_of("dbo.Lines") == ["INSERT"]


def test_a_list_of_the_procedures_that_insert_into_a_table_leaves_out_those_that_only_update_or_delete():
    from ragstream.graph.answers import answer_from_graph
    from ragstream.graph.named import find_named
    from ragstream.index.graph_build import build_graph

    sql = parse_sql("db/procs.sql", """
CREATE TABLE dbo.Lines (Id INT, Amount INT);
GO
CREATE PROCEDURE dbo.AddLine @a INT AS INSERT INTO dbo.Lines (Amount) VALUES (@a);
GO
CREATE PROCEDURE dbo.FixLine @a INT AS UPDATE dbo.Lines SET Amount = @a;
GO
CREATE PROCEDURE dbo.PurgeLines AS DELETE FROM dbo.Lines;
GO
CREATE PROCEDURE dbo.SyncLines AS MERGE dbo.Lines AS t USING dbo.Lines AS s ON t.Id = s.Id WHEN NOT MATCHED THEN INSERT (Amount) VALUES (s.Amount);
""", "tsql")
    graph = build_graph([sql])[0]

    def listed(question: str) -> set[str]:
        answer = answer_from_graph(graph, question, find_named(graph, question), [], lambda ids: {})
        assert answer is not None
        return {item.id.split(":", 1)[1].split("|")[0] for item in answer.items}

    assert listed("Which stored procedures insert rows into the Lines table?") == {"dbo.AddLine", "dbo.SyncLines"}
    assert listed("Which procedures delete from the Lines table?") == {"dbo.PurgeLines"}
    # "modify" is any write
    assert listed("Which procedures modify the Lines table?") == {"dbo.AddLine", "dbo.FixLine", "dbo.PurgeLines",
                                                                 "dbo.SyncLines"}
    assert listed("Which procedures write to the Lines table?") == {"dbo.AddLine", "dbo.FixLine", "dbo.PurgeLines",
                                                                   "dbo.SyncLines"}


def test_ssms_template_parameters_and_textimage_on_keep_the_table_under_its_schema():
    """SSMS scripts: `TEXTIMAGE_ON [PRIMARY]` once lost the whole CREATE TABLE, and a template
    parameter `<dbUser,varchar,dbo>` stood as the schema of every object; the parameter is its
    value, on the same lines. A comparison (`a < b`) is no parameter."""
    text = ("CREATE TABLE [<dbUser,varchar,dbo>].[subtext_Content] (\n"
            "\t[ID] [int] IDENTITY (1, 1) NOT NULL ,\n"
            "\t[Text] [ntext] NULL\n"
            ") ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]\nGO\n"
            "CREATE PROC [<dbUser,varchar,dbo>].[subtext_GetEntry] (@ID int)\nAS\n"
            "SELECT [Text] FROM [<dbUser,varchar,dbo>].[subtext_Content] WHERE ID < @ID AND ID > 0\nGO\n")
    parsed = parse_sql("install.sql", text)
    assert parsed.warnings == []
    assert node(parsed, "sql:dbo.subtext_Content|TABLE").start_line == 1
    assert {n.name: n.start_line for n in parsed.nodes if n.kind == "COLUMN"} == {
        "dbo.subtext_Content.ID": 2, "dbo.subtext_Content.Text": 3}
    assert node(parsed, "sql:dbo.subtext_GetEntry|PROCEDURE").start_line == 6
    assert not [n for n in parsed.nodes if "<" in n.name]
    reads = {(r.source, r.target) for r in parsed.references if r.edge_type == "READS"}
    assert reads == {("sql:dbo.subtext_GetEntry|PROCEDURE", "dbo.subtext_Content")}
    # SSMS's stock procedure template; a comparison in IIF, and one over two lines, are no parameters
    stock = ("CREATE PROCEDURE <Procedure_Name, sysname, ProcedureName>\n"
             "\t<@Param1, sysname, @p1> <Datatype_For_Param1, , int> = <Default_Value_For_Param1, , 0>\nAS\n"
             "SELECT @p1\nGO\n"
             "CREATE PROC dbo.Level (@Qty int, @MinQty int, @MaxQty int) AS\n"
             "SELECT IIF(Qty<MinQty, Low, IIF(Qty>MaxQty, 3, 2)) FROM dbo.Stock WHERE Qty <\nMinQty, 1 >\n0\nGO\n"
             "CREATE PROC dbo.After AS SELECT 1\nGO\n")
    parsed = parse_sql("stock.sql", stock)
    assert node(parsed, "sql:dbo.ProcedureName|PROCEDURE").start_line == 1
    assert node(parsed, "sql:dbo.Level|PROCEDURE").signature.startswith("CREATE PROC dbo.Level (@Qty int")
    assert node(parsed, "sql:dbo.After|PROCEDURE").start_line == 11
    assert parsed.warnings == []


def test_tsql_storage_options_sqlglot_cannot_read_do_not_lose_the_table():
    """`ROWGUIDCOL`, `SPARSE`, `FILESTREAM`, `MASKED WITH (...)` and `CHECK NOT FOR REPLICATION`
    once dropped the whole CREATE TABLE (BlogEngine's scripts); blanked, the table and every
    column stay, on their own lines."""
    text = ("CREATE TABLE [dbo].[be_Pages](\n"
            "\t[PageID] [uniqueidentifier] ROWGUIDCOL  NOT NULL CONSTRAINT [DF_be_Pages_PageID] DEFAULT (newid()),\n"
            "\t[Doc] varbinary(max) FILESTREAM NULL,\n"
            "\t[Extra] int SPARSE NULL,\n"
            "\t[Email] varchar(90) MASKED WITH (FUNCTION = 'email()') NULL,\n"
            "\t[Rank] int CHECK NOT FOR REPLICATION ([Rank] > 0),\n"
            "\tCONSTRAINT [PK_be_Pages] PRIMARY KEY CLUSTERED ([PageID] ASC)\n"
            ") ON [PRIMARY]\nGO\n")
    parsed = parse_sql("setup.sql", text)
    assert parsed.warnings == []
    columns = {n.name: n.start_line for n in parsed.nodes if n.kind == "COLUMN"}
    assert columns == {"dbo.be_Pages.PageID": 2, "dbo.be_Pages.Doc": 3, "dbo.be_Pages.Extra": 4,
                       "dbo.be_Pages.Email": 5, "dbo.be_Pages.Rank": 6}
    assert node(parsed, "sql:dbo.be_Pages|TABLE").signature == "CREATE TABLE dbo.be_Pages"
    # outside T-SQL nothing is blanked: a column named `sparse` stays a column
    assert {n.name for n in parse_sql("pg.sql", "CREATE TABLE t (sparse int, x SERIAL);\n").nodes
            if n.kind == "COLUMN"} == {"t.sparse", "t.x"}


def test_an_unnamed_clustered_key_and_mysql_scripts_keep_their_tables():
    """An unnamed `PRIMARY KEY CLUSTERED` (SSMS scripts of system-named keys: cqrs-journey's
    `CreateDatabaseObjects.sql`, BugNET, Roadkill) and a MySQL setup script read in another
    dialect (BlogEngine's) once lost every such CREATE TABLE; the index kind is blanked and the
    dialect detected, so the table, its columns and its key stay."""
    text = ("CREATE TABLE [Events].[Events](\n"
            "\t[AggregateId] [uniqueidentifier] NOT NULL,\n"
            "\t[Version] [int] NOT NULL,\n"
            "PRIMARY KEY CLUSTERED \n(\n\t[AggregateId] ASC,\n\t[Version] ASC\n"
            ")WITH (STATISTICS_NORECOMPUTE  = OFF, IGNORE_DUP_KEY = OFF)\n)\nGO\n"
            "CREATE TABLE dbo.Users (UserId int NOT NULL PRIMARY KEY NONCLUSTERED, Name nvarchar(50) NULL,\n"
            "  Email nvarchar(90) NOT NULL UNIQUE CLUSTERED)\nGO\n"
            # a named table-level UNIQUE keeps its index kind (sutekishop's script: blanked, it was lost)
            "CREATE TABLE [dbo].[Category]([CategoryId] [int] NOT NULL, [Name] [nvarchar](50) NOT NULL,\n"
            " CONSTRAINT [PK_Category] PRIMARY KEY CLUSTERED ([CategoryId] ASC)WITH (PAD_INDEX = OFF) ON [PRIMARY],\n"
            " CONSTRAINT [category_name_unique] UNIQUE NONCLUSTERED ([Name] ASC)WITH (PAD_INDEX = OFF) ON [PRIMARY]\n"
            ") ON [PRIMARY]\nGO\n")
    parsed = parse_sql("CreateDatabaseObjects.sql", text)
    assert parsed.warnings == []
    assert node(parsed, "sql:Events.Events|TABLE").start_line == 1
    assert {n.name for n in parsed.nodes if n.kind == "COLUMN"} == {
        "Events.Events.AggregateId", "Events.Events.Version", "dbo.Users.UserId", "dbo.Users.Name", "dbo.Users.Email",
        "dbo.Category.CategoryId", "dbo.Category.Name"}
    mysql = ("CREATE TABLE `be_Blogs` (\n  `BlogRowId` int(10) UNSIGNED NOT NULL AUTO_INCREMENT,\n"
             "  `BlogName` varchar(255) NOT NULL DEFAULT '',\n  PRIMARY KEY (`BlogRowId`)\n"
             ") ENGINE=InnoDB DEFAULT CHARSET=latin1;\n")
    parsed = parse_sql("MySQLSetup.sql", mysql)
    assert node(parsed, "sql:be_Blogs|TABLE").start_line == 1
    assert {n.name for n in parsed.nodes if n.kind == "COLUMN"} == {"be_Blogs.BlogRowId", "be_Blogs.BlogName"}
    # a column named like the option stays a column, and outside T-SQL nothing is blanked
    assert {n.name for n in parse_sql("pg.sql", "CREATE TABLE t (clustered int, x SERIAL);\n").nodes
            if n.kind == "COLUMN"} == {"t.clustered", "t.x"}


def test_a_statement_the_tokenizer_rejects_loses_only_itself():
    """An application's own template syntax (Duplicati's `{#if sqlite_version >= 3.8.2}`) once
    made the whole file unreadable; the batch is cut at line-ending `;`s and every other
    statement stays, with the rejected one reported at its line."""
    text = ('CREATE TABLE "Operation" (\n\t"ID" INTEGER PRIMARY KEY\n);\n\n'
            'CREATE TABLE "FilesetEntry" (\n\t"FilesetID" INTEGER NOT NULL\n) {#if sqlite_version >= 3.8.2} WITHOUT ROWID {#endif};\n\n'
            'CREATE TABLE "Block" (\n\t"ID" INTEGER PRIMARY KEY,\n\t"Hash" TEXT NOT NULL\n);\n')
    parsed = parse_sql("Schema.sql", text)
    assert {n.id: n.start_line for n in parsed.nodes if n.kind == "TABLE"} == {
        "sql:Operation|TABLE": 1, "sql:Block|TABLE": 9}
    assert [w.split(": ", 1)[0] for w in parsed.warnings] == ["Schema.sql:5"]


def test_prose_that_reads_as_sql_names_no_table():
    """A message or description that happens to read as SQL ("Select a file from the list", TShock's
    REST descriptions) once named tables `the` and `an`; a real name containing such a word stays."""
    from ragstream.index.sql.access import table_access
    assert table_access("Select a file from the list") == table_access("")
    assert table_access("Delete an entry").operations == ()
    assert table_access("select Name from Users u join the_log l on 1 = 1").reads == ("Users", "the_log")


def test_if_not_exists_is_no_part_of_a_views_or_routines_name():
    """`CREATE MATERIALIZED VIEW IF NOT EXISTS wallets_history` (PostgreSQL) is the view
    `wallets_history`, not one named `IF`; a routine whose name starts with `IF` keeps it."""
    made = parse_sql("db/views.sql", "CREATE MATERIALIZED VIEW IF NOT EXISTS wallets_history AS SELECT a FROM t;\n"
                     "CREATE VIEW IF NOT EXISTS recent AS SELECT a FROM t;\n"
                     "CREATE OR REPLACE FUNCTION if_missing() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql;\n",
                     "postgres")
    assert sorted(n.id for n in made.nodes if n.kind in ("VIEW", "FUNCTION")) == [
        "sql:if_missing|FUNCTION", "sql:recent|VIEW", "sql:wallets_history|VIEW"]
