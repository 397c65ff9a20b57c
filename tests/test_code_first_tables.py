"""Tables a code-first ORM other than EF creates (`index/csharp/code_first_tables`, ServiceStack
OrmLite) and the last SQL name resolution (`index/sql/name_resolution`): the edges each form
must make, and those it must not."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

TYPES = """
using ServiceStack.DataAnnotations;
namespace App.Types;
public abstract class StackBase { public int OwnerId { get; set; } }
public class TechnologyStack : StackBase
{
    public int Id { get; set; }
    public string Name { get; set; }
    [Alias("desc_text")] public string Description { get; set; }
    [Ignore] public string Cached { get; set; }
    [Reference] public Organization Organization { get; set; }
    [References(typeof(Organization))] public int OrganizationId { get; set; }
    public string Slug => Name;
}
[Alias("orgs"), Schema("admin")]
public class Organization { public int Id { get; set; } }
public class UserActivity { public int Id { get; set; } public int PostsCount { get; set; } }
public class NotCreated { public int Id { get; set; } }
"""

POSTGRES_HOST = """
using ServiceStack.OrmLite;
namespace App;
public class AppHost
{
    public void Configure() { var f = new OrmLiteConnectionFactory("cs", PostgreSqlDialect.Provider); }
}
"""

MIGRATION = """
using System.Data;
using ServiceStack.OrmLite;
using App.Types;
namespace App.Migrations;
public class Migration1000
{
    public class UserActivity { public int Id { get; set; } }
    public void Up(IDbConnection db)
    {
        db.CreateTableIfNotExists<TechnologyStack>();
        db.CreateTable(false, typeof(Organization));
        db.DropAndCreateTable<UserActivity>();
    }
}
"""

SERVICES = """
using System.Data;
using Dapper;
namespace App.Services;
public class StackServices
{
    private readonly IDbConnection _db;
    public void Touch() => _db.Execute("UPDATE technology_stack SET name = 'x'");
    public void Count() => _db.Execute("UPDATE user_activity SET posts_count = posts_count + 1");
    public void Other() => _db.Execute("UPDATE not_created SET id = 1");
}
"""


def _out(graph: nx.MultiDiGraph, source: str, key: str) -> dict[str, dict]:
    return {target: attrs for _, target, k, attrs in graph.out_edges(source, keys=True, data=True) if k == key}


def _build(*files: tuple[str, str]) -> nx.MultiDiGraph:
    graph, _ = build_graph([parse_csharp(path, text) for path, text in files])
    return graph


def test_ormlite_create_table_makes_a_snake_case_table_with_columns_under_a_postgres_dialect():
    graph = _build(("Types.cs", TYPES), ("AppHost.cs", POSTGRES_HOST), ("Migration.cs", MIGRATION))
    table = "sql:dbo.technology_stack|TABLE"
    assert graph.nodes[table]["kind"] == "TABLE"
    assert graph.nodes[table]["attrs"]["via"] == "code_first"
    assert graph.nodes[table]["attrs"]["created_by"] == "cs:App.Migrations.Migration1000.Up|METHOD"
    maps = _out(graph, "cs:App.Types.TechnologyStack|TYPE", "MAPS_TO")
    assert maps[table]["via"] == "code_first" and maps[table]["naming"] == "snake_case"
    columns = {graph.nodes[c]["name"] for _, c, k in graph.out_edges(table, keys=True) if k == "DEFINES"}
    # a base's property is a column, `[Alias]` names its column; `[Ignore]`, `[Reference]`, get-only are none
    assert columns == {f"dbo.technology_stack.{c}" for c in ("id", "name", "desc_text", "owner_id", "organization_id")}
    owner = _out(graph, "cs:App.Types.StackBase.OwnerId|PROPERTY", "MAPS_TO")
    assert set(owner) == {"sql:dbo.technology_stack.owner_id|COLUMN"}
    assert not _out(graph, "cs:App.Types.TechnologyStack.Cached|PROPERTY", "MAPS_TO")


def test_alias_and_schema_name_the_table_and_references_make_a_foreign_key():
    graph = _build(("Types.cs", TYPES), ("AppHost.cs", POSTGRES_HOST), ("Migration.cs", MIGRATION))
    orgs = "sql:admin.orgs|TABLE"  # the non-generic `typeof(T)` form, named by `[Alias]` and `[Schema]`
    assert graph.nodes[orgs]["kind"] == "TABLE"
    assert _out(graph, "cs:App.Types.Organization|TYPE", "MAPS_TO")[orgs]["resolution"] == "static"
    fk = _out(graph, "sql:dbo.technology_stack|TABLE", "FOREIGN_KEY")
    assert fk[orgs]["columns"] == ["organization_id"] and fk[orgs]["via"] == "code_first"
    assert "sql:dbo.organization|TABLE" not in graph


def test_a_namesake_class_maps_to_the_created_table_as_a_guess_and_an_uncreated_class_maps_nowhere():
    graph = _build(("Types.cs", TYPES), ("AppHost.cs", POSTGRES_HOST), ("Migration.cs", MIGRATION))
    table = "sql:dbo.user_activity|TABLE"
    created = graph.nodes[table]["attrs"]["entity"]
    other = ({"cs:App.Types.UserActivity|TYPE", "cs:App.Migrations.Migration1000.UserActivity|TYPE"} - {created}).pop()
    assert _out(graph, other, "MAPS_TO")[table]["via"] == "code_first_namesake"
    assert _out(graph, other, "MAPS_TO")[table]["guess"] is True
    assert not _out(graph, "cs:App.Types.NotCreated|TYPE", "MAPS_TO")


def test_without_a_declared_strategy_the_class_name_is_the_table_name():
    graph = _build(("Types.cs", TYPES), ("Migration.cs", MIGRATION))
    assert graph.nodes["sql:dbo.TechnologyStack|TABLE"]["kind"] == "TABLE"
    assert "sql:dbo.technology_stack|TABLE" not in graph
    maps = _out(graph, "cs:App.Types.TechnologyStack|TYPE", "MAPS_TO")
    assert maps["sql:dbo.TechnologyStack|TABLE"]["resolution"] == "static"


def test_raw_sql_names_resolve_onto_code_first_tables_and_unknown_names_are_tables_known_only_from_code():
    graph = _build(("Types.cs", TYPES), ("AppHost.cs", POSTGRES_HOST), ("Migration.cs", MIGRATION),
                   ("Services.cs", SERVICES))
    touch = _out(graph, "cs:App.Services.StackServices.Touch|METHOD", "WRITES")
    assert set(touch) == {"sql:dbo.technology_stack|TABLE"}
    edge = touch["sql:dbo.technology_stack|TABLE"]
    assert edge["resolution"] == "inferred" and edge["table_via"] == "code_first"
    assert edge["name_rule"] == "default_schema" and edge["external"] == "technology_stack"
    count = _out(graph, "cs:App.Services.StackServices.Count|METHOD", "WRITES")
    assert set(count) == {"sql:dbo.user_activity|TABLE"}
    other = _out(graph, "cs:App.Services.StackServices.Other|METHOD", "WRITES")
    # no table `not_created` was created by the ORM: the SQL alone says it is one (`code_only_tables`)
    assert [graph.nodes[t]["attrs"]["via"] for t in other] == ["sql_text"]


SNAKE_EF = """
using Microsoft.EntityFrameworkCore;
namespace Shop;
public class Order { public int Id { get; set; } }
public class OrderLine { public int Id { get; set; } }
public class ShopContext : DbContext
{
    public DbSet<OrderLine> OrderLines { get; set; }
    protected override void OnConfiguring(DbContextOptionsBuilder b) => b.UseNpgsql("cs").UseSnakeCaseNamingConvention();
}
public class Repo
{
    private readonly System.Data.IDbConnection _db;
    public void Touch() => Dapper.SqlMapper.Execute(_db, "DELETE FROM order_lines WHERE id = 1");
}
"""


def test_a_declared_snake_case_convention_matches_raw_sql_onto_an_ef_model_table():
    graph = _build(("Shop.cs", SNAKE_EF))
    writes = _out(graph, "cs:Shop.Repo.Touch|METHOD", "WRITES")
    assert set(writes) == {"sql:dbo.OrderLines|TABLE"}
    assert writes["sql:dbo.OrderLines|TABLE"]["name_rule"] == "naming_strategy"


def test_without_a_declared_convention_underscored_names_stay_external():
    graph = _build(("Shop.cs", SNAKE_EF.replace(".UseSnakeCaseNamingConvention()", "")))
    writes = _out(graph, "cs:Shop.Repo.Touch|METHOD", "WRITES")
    assert [graph.nodes[t]["kind"] for t in writes] == ["EXTERNAL"]


SCHEMAS = """
CREATE TABLE dbo.Entry (Id INT);
CREATE TABLE audit.Entry (Id INT);
CREATE TABLE audit.Trail (Id INT);
CREATE TABLE sales.Trail (Id INT);
"""

LATE_READER = """
using Microsoft.EntityFrameworkCore;
namespace Blog;
public class Post { public int Id { get; set; } }
public class BlogContext : DbContext { public DbSet<Post> Posts { get; set; } }
public class Reader
{
    private readonly System.Data.IDbConnection _db;
    public void Model() => Dapper.SqlMapper.Execute(_db, "DELETE FROM POSTS");
    public void Other() => Dapper.SqlMapper.Execute(_db, "DELETE FROM audit.Posts");
}
"""


def test_case_and_default_schema_resolve_and_another_schema_does_not():
    graph, _ = build_graph([parse_sql("schema.sql", SCHEMAS), parse_csharp("Blog.cs", LATE_READER)])
    model = _out(graph, "cs:Blog.Reader.Model|METHOD", "WRITES")
    assert set(model) == {"sql:dbo.Posts|TABLE"}  # made by the EF model after the SQL was linked
    assert model["sql:dbo.Posts|TABLE"]["table_via"] == "ef_model"
    other = _out(graph, "cs:Blog.Reader.Other|METHOD", "WRITES")
    assert [graph.nodes[t]["kind"] for t in other] == ["EXTERNAL"]  # audit.Posts is no table of the graph


def test_two_schemas_with_the_name_and_none_default_keep_the_name_external_with_candidates():
    from ragstream.index.sql.name_resolution import SqlNames

    graph, _ = build_graph([parse_sql("schema.sql", SCHEMAS)])
    index = SqlNames(graph, loose=False)
    assert index.match("Entry", ("TABLE", "VIEW"))[:2] == ("sql:dbo.Entry|TABLE", "default_schema")
    assert index.match("AUDIT.ENTRY", ("TABLE", "VIEW"))[:2] == ("sql:audit.Entry|TABLE", "case")
    target, _, candidates = index.match("Trail", ("TABLE", "VIEW"))
    assert target is None and candidates == ["sql:audit.Trail|TABLE", "sql:sales.Trail|TABLE"]
    assert index.match("Entry", ("PROCEDURE", "FUNCTION"))[0] is None  # a call means a routine



IDENTITY_MIGRATION = """
using Microsoft.EntityFrameworkCore.Migrations;
namespace App.Migrations;
public partial class CreateIdentitySchema : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.CreateTable(name: "AspNetUsers", columns: table => new { Id = table.Column<int>(nullable: false) });
    }
}
"""

ALIASED_USERS = """
using ServiceStack.DataAnnotations;
namespace App.Data;
[Alias("AspNetUsers")]
public class ApplicationUser { public int Id { get; set; } }
[Alias("AspNetRoles")]
public class ApplicationRole { public int Id { get; set; } }
"""


def test_an_aliased_class_maps_to_the_table_another_source_made_and_an_alias_naming_no_table_maps_nowhere():
    graph = _build(("Migration.cs", IDENTITY_MIGRATION), ("Users.cs", ALIASED_USERS))
    users = _out(graph, "cs:App.Data.ApplicationUser|TYPE", "MAPS_TO")
    assert set(users) == {"sql:AspNetUsers|TABLE"} and users["sql:AspNetUsers|TABLE"]["via"] == "orm_alias"
    assert not _out(graph, "cs:App.Data.ApplicationRole|TYPE", "MAPS_TO")  # no AspNetRoles table: nothing made
    assert not [node for node in graph if "AspNetRoles" in node]
