"""FluentMigrator migrations as the schema (`index/csharp/fluent_migrations`): the tables and
columns they create, alter, rename and drop, settled across files with EF's replay; the code that
reads and writes those tables links to them; and what is no migration makes no table."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

INITIAL = """
using FluentMigrator;
using Shop.Datastore.Migration.Framework;
namespace Shop.Datastore.Migration
{
    [Migration(1)]
    public class InitialSetup : ShopMigrationBase
    {
        protected override void MainDbUpgrade()
        {
            Create.TableForModel("History")
                .WithColumn("IndexerId").AsInt32()
                .WithColumn("Data").AsString().Nullable();
            Create.Table("Tags").InSchema("dbo")
                .WithColumn("Id").AsInt32().PrimaryKey().Identity()
                .WithColumn("Label").AsString(100).Unique();
            Create.Table("TagLinks")
                .WithColumn("TagId").AsInt32().ForeignKey("FK_TagLinks_Tags", "Tags", "Id");
            Create.Table("Old").WithColumn("A").AsInt32();
            Insert.IntoTable("Tags").Row(new { Label = "default" });
        }
        public override void Down() { Delete.Table("History"); }
    }
}
"""

SECOND = """
using FluentMigrator;
namespace Shop.Datastore.Migration
{
    [Migration(2)]
    public class HistorySuccess : Migration
    {
        public override void Up()
        {
            Alter.Table("History").AddColumn("Successful").AsBoolean().Nullable();
            Delete.Column("Data").FromTable("History");
            Rename.Column("IndexerId").OnTable("History").To("ProviderId");
            Rename.Table("Old").To("Archive");
        }
        public override void Down() { }
    }
}
"""

CODE = """
using Dapper;
namespace Shop.Housekeeping
{
    public class Tag { public int Id { get; set; } public string Label { get; set; } }
    public interface IBasicRepository<TModel> { TModel Insert(TModel model); }
    public interface ITagRepository : IBasicRepository<Tag> { }
    public class TagService
    {
        private readonly ITagRepository _repo;
        public TagService(ITagRepository repo) { _repo = repo; }
        public Tag Add(Tag tag) { return _repo.Insert(tag); }
    }
    public class CleanupHistory
    {
        private readonly System.Data.IDbConnection _db;
        public void Clean() { _db.Execute(@"DELETE FROM ""History"" WHERE ""ProviderId"" = 0"); }
    }
    public class TableBuilder
    {
        // the same words outside a FluentMigrator migration: no table
        public void Run() { Create.Table("Scratch").WithColumn("X").AsInt32(); }
    }
}
"""


def build() -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in {
        "src/Datastore/Migration/001_initial_setup.cs": INITIAL,
        "src/Datastore/Migration/002_history_success.cs": SECOND,
        "src/Housekeeping/Code.cs": CODE}.items()]
    graph, _ = build_graph(files)
    return graph


def test_tables_and_columns_are_what_the_migrations_leave_in_their_order():
    graph = build()
    tables = sorted(n for n in graph if n.endswith("|TABLE"))
    assert tables == ["sql:Archive|TABLE", "sql:History|TABLE", "sql:TagLinks|TABLE", "sql:dbo.Tags|TABLE"]
    history = sorted(n for n in graph if n.startswith("sql:History.") and n.endswith("|COLUMN"))
    # Data dropped, IndexerId renamed, Successful added by the second migration
    assert history == ["sql:History.ProviderId|COLUMN", "sql:History.Successful|COLUMN"]
    assert graph.nodes["sql:dbo.Tags.Id|COLUMN"]["attrs"]["primary_key"] is True
    assert graph.nodes["sql:History|TABLE"]["attrs"]["via"] == "fluent_migration"


def test_a_foreign_key_and_the_migrations_references_say_how_they_were_made():
    graph = build()
    keys = [(s, t, d) for s, t, d in graph.edges(data=True) if d["type"] == "FOREIGN_KEY"]
    assert [(s, t) for s, t, _ in keys] == [("sql:TagLinks|TABLE", "sql:dbo.Tags|TABLE")]
    assert keys[0][2]["columns"] == ["TagId"] and keys[0][2]["ref_columns"] == ["Id"]
    parsed = parse_csharp("src/Datastore/Migration/001_initial_setup.cs", INITIAL)
    operations = [(r.target, r.attrs["operation"]) for r in parsed.references if r.attrs.get("via") == "fluent_migration"
                  and r.edge_type == "REFERENCES"]
    assert operations == [("History", "create_table"), ("dbo.Tags", "create_table"), ("TagLinks", "create_table"),
                          ("Old", "create_table"), ("Tags", "insert_rows")]  # `Down` reverts: no drop_table
    second = parse_csharp("src/Datastore/Migration/002_history_success.cs", SECOND)
    assert [(r.attrs["operation"], r.attrs.get("column"), r.attrs.get("new_name")) for r in second.references
            if r.attrs.get("via") == "fluent_migration"] == [
        ("add_column", "Successful", None), ("drop_column", "Data", None), ("rename_column", "IndexerId", "ProviderId"),
        ("rename_table", None, "Archive")]


def test_code_reads_and_writes_the_tables_a_migration_created():
    graph = build()
    writes = {t for _, t, d in graph.out_edges("cs:Shop.Housekeeping.TagService.Add|METHOD", data=True)
              if d["type"] == "WRITES"}
    assert writes == {"sql:dbo.Tags|TABLE"}  # the repository's type argument, not another table
    cleaned = {t for _, t, d in graph.out_edges("cs:Shop.Housekeeping.CleanupHistory.Clean|METHOD", data=True)
               if d["type"] == "WRITES"}
    assert cleaned == {"sql:History|TABLE"}


def test_fluent_calls_outside_a_fluentmigrator_migration_make_no_table():
    graph = build()
    assert "sql:Scratch|TABLE" not in graph and "sql:dbo.Scratch|TABLE" not in graph
    alone = parse_csharp("src/Other.cs", INITIAL.replace("using FluentMigrator;", ""))
    assert not [n for n in alone.nodes if n.kind == "TABLE"]  # no FluentMigrator import: not its migration


def test_a_migration_helper_named_for_creating_a_table_creates_it_with_its_lambdas_columns():
    """Serene's `this.CreateTableWithId32("Users", "UserId", s => s.WithColumn("Username")...)`: a helper
    of the migration's own (or an extension on it) named `CreateTable...` creates the table its first
    string names with the lambda's columns; a call on another object named so creates nothing."""
    source = """
using FluentMigrator;
namespace App.Migrations
{
    [Migration(20141103140000)]
    public class Initial : Migration
    {
        public override void Up()
        {
            this.CreateTableWithId32("Users", "UserId", s => s
                .WithColumn("Username").AsString(100).NotNullable()
                .WithColumn("DisplayName").AsString(100).NotNullable());
            CreateTableWithId64("Roles", "RoleId", s => s.WithColumn("RoleName").AsString(100));
            Helpers.CreateTableLater("Nope", s => s.WithColumn("A"));
        }
        public override void Down() { }
    }
}
"""
    made = {n.id for n in parse_csharp("Migrations/Initial.cs", source).nodes if n.kind in ("TABLE", "COLUMN")}
    assert made == {"sql:Users|TABLE", "sql:Users.Username|COLUMN", "sql:Users.DisplayName|COLUMN",
                    "sql:Roles|TABLE", "sql:Roles.RoleName|COLUMN"}
