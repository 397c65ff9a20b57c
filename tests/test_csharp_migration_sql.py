"""Tables a migration creates in its own SQL (`index/csharp/migration_sql`): EF Core's
`migrationBuilder.Sql("CREATE TABLE ...")` (a raw literal too) and FluentMigrator's `Execute.Sql(...)` make TABLE,
COLUMN and FOREIGN_KEY like `CreateTable` does, replayed with the other operations; and what
must not: SQL in `Down`, SQL that creates no table, a view the SQL creates."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

EF_CORE = '''using Microsoft.EntityFrameworkCore.Migrations;

namespace Shop.Migrations
{
    [Migration("20260521120000_multi_sig")]
    public partial class MultiSig : Migration
    {
        protected override void Up(MigrationBuilder migrationBuilder)
        {
            migrationBuilder.Sql(
                """
                CREATE TABLE "multisig_setups" (
                    id text NOT NULL,
                    store_id text NOT NULL,
                    CONSTRAINT "PK_multisig_setups" PRIMARY KEY ("id")
                );
                CREATE TABLE multisig_participants (
                    setup_id text NOT NULL REFERENCES multisig_setups (id) ON DELETE CASCADE,
                    name text
                );
                CREATE VIEW open_setups AS SELECT id FROM multisig_setups;
                """);
            migrationBuilder.Sql("INSERT INTO settings (id) VALUES ('x');");
        }

        protected override void Down(MigrationBuilder migrationBuilder)
        {
            migrationBuilder.Sql("CREATE TABLE restored_backup (id int);");
        }
    }
}
'''

FLUENT = '''using FluentMigrator;

namespace Shop.Migrations
{
    [Migration(7)]
    public class AddAudit : Migration
    {
        public override void Up()
        {
            Execute.Sql("CREATE TABLE audit_entries (id int PRIMARY KEY, message varchar(200))");
        }

        public override void Down()
        {
            Delete.Table("audit_entries");
        }
    }
}
'''


def build(files: dict[str, str]) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp(path, text) for path, text in files.items()])
    return graph


def tables(graph: nx.MultiDiGraph) -> dict[str, dict]:
    return {data["name"]: data for _, data in graph.nodes(data=True) if data.get("kind") == "TABLE"}


def test_the_tables_a_migrations_sql_creates_are_tables_with_columns_and_keys() -> None:
    graph = build({"Migrations/20260521120000_multi_sig.cs": EF_CORE})
    made = tables(graph)
    assert sorted(made) == ["multisig_participants", "multisig_setups"]
    setups = made["multisig_setups"]
    assert setups["attrs"]["via"] == "ef_migration" and setups["attrs"]["sql"] is True
    assert setups["attrs"]["migration"] == "Shop.Migrations.MultiSig"
    assert setups["path"] == "Migrations/20260521120000_multi_sig.cs" and setups["start_line"] == 12
    assert graph.has_node("sql:multisig_setups.store_id|COLUMN")
    assert graph.has_edge("sql:multisig_participants|TABLE", "sql:multisig_setups|TABLE", key="FOREIGN_KEY")
    up = "cs:Shop.Migrations.MultiSig.Up|METHOD"
    assert graph.edges[up, "sql:multisig_setups|TABLE", "REFERENCES"]["operation"] == "create_table"


def test_sql_in_down_a_view_and_data_make_no_table() -> None:
    graph = build({"Migrations/20260521120000_multi_sig.cs": EF_CORE})
    names = {data.get("name") for _, data in graph.nodes(data=True)}
    assert "restored_backup" not in names and "open_setups" not in names
    assert not any(data.get("kind") == "TABLE" and "settings" in data.get("name", "") for _, data in graph.nodes(data=True))


def test_fluent_migrators_execute_sql_creates_its_table() -> None:
    graph = build({"Migrations/AddAudit.cs": FLUENT})
    made = tables(graph)
    assert list(made) == ["audit_entries"]
    assert made["audit_entries"]["attrs"]["via"] == "fluent_migration"
    assert graph.has_node("sql:audit_entries.message|COLUMN")
