"""EF6 `DbMigration`s as tables, and using directives inside a namespace resolved from it outwards."""
from __future__ import annotations

import networkx as nx

from ragstream.index.graph_build import build_graph
from ragstream.index.csharp.parser import parse_csharp

INITIAL = '''
namespace Forum.Core.Migrations
{
    using System.Data.Entity.Migrations;

    public partial class InitialCommit : DbMigration
    {
        public override void Up()
        {
            if (!TableExists("Topic"))
            {
                CreateTable("dbo.Topic",
                        c => new
                        {
                            Id = c.Guid(nullable: false),
                            Slug = c.String(false, 450),
                            Category_Id = c.Guid(),
                        })
                    .PrimaryKey(t => t.Id)
                    .ForeignKey("dbo.Category", t => t.Category_Id, cascadeDelete: true)
                    .Index(t => t.Slug, unique: true);
            }
            CreateTable("dbo.Category", c => new { Id = c.Guid(nullable: false) }).PrimaryKey(t => t.Id);
            CreateTable("dbo.Legacy", c => new { Id = c.Int(nullable: false) });
        }

        public override void Down()
        {
            DropTable("dbo.Category");
        }
    }
}
'''

LATER = '''
namespace Forum.Core.Migrations
{
    using System.Data.Entity.Migrations;

    public partial class Reshape : DbMigration
    {
        public override void Up()
        {
            AddColumn("dbo.Topic", "Views", c => c.Int(storeType: "bigint"));
            RenameColumn("dbo.Topic", "Slug", "UrlSlug");
            DropTable("dbo.Legacy");
        }
    }
}
'''

# Not EF6: a class deriving from a `DbMigration` of the code base's own that takes other
# parameters would still be read as EF6; a class that is no migration at all makes no table.
NOT_A_MIGRATION = '''
namespace Forum.Core.Setup
{
    public class Installer
    {
        public void Up() { CreateTable("dbo.Ghost", c => new { Id = c.Int() }); }
    }
}
'''

ENTITY = '''
namespace Forum.Core.Models.Entities
{
    public class Topic { public System.Guid Id { get; set; } }
}
'''

CONTEXT = '''
namespace Forum.Core.Data.Context
{
    using System.Data.Entity;
    using Models.Entities;

    public class ForumContext : DbContext
    {
        public virtual DbSet<Topic> Topic { get; set; }
    }
}
'''

# `using Entities;` at file level names the namespace `Entities`, not `Forum.Core.Models.Entities`.
FILE_LEVEL_USING = '''
using Entities;

namespace Forum.Core.Data.Other
{
    using System.Data.Entity;

    public class OtherContext : DbContext
    {
        public virtual DbSet<Topic> Topics { get; set; }
    }
}
'''

FILES = {
    "Core/Migrations/201712271549027_InitialCommit.cs": INITIAL,
    "Core/Migrations/201801011815079_Reshape.cs": LATER,
    "Core/Setup/Installer.cs": NOT_A_MIGRATION,
    "Core/Models/Entities/Topic.cs": ENTITY,
    "Core/Data/Context/ForumContext.cs": CONTEXT,
}


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_csharp(path, text) for path, text in files.items()])[0]


def test_an_ef6_migration_makes_tables_columns_and_foreign_keys():
    graph = graph_of(FILES)
    topic = graph.nodes["sql:dbo.Topic|TABLE"]
    assert (topic["path"], topic["attrs"]["via"]) == ("Core/Migrations/201712271549027_InitialCommit.cs", "ef_migration")
    assert topic["attrs"]["primary_key"] == ["Id"]  # from the chained `.PrimaryKey(t => t.Id)`
    assert topic["parent"] == "cs:Forum.Core.Migrations.InitialCommit|TYPE"
    identity = graph.nodes["sql:dbo.Topic.Id|COLUMN"]["attrs"]
    assert (identity["data_type"], identity["primary_key"], identity["nullable"]) == ("guid", True, False)
    category_id = graph.nodes["sql:dbo.Topic.Category_Id|COLUMN"]["attrs"]
    assert category_id["nullable"] is True  # `c.Guid()`: EF6's default
    fk = graph.get_edge_data("sql:dbo.Topic|TABLE", "sql:dbo.Category|TABLE", "FOREIGN_KEY")
    assert (fk["columns"], fk["via"], fk["on_delete"]) == (["Category_Id"], "ef_migration", "CASCADE")
    link = graph.get_edge_data("cs:Forum.Core.Migrations.InitialCommit.Up|METHOD", "sql:dbo.Topic|TABLE", "REFERENCES")
    assert link["operation"] == "create_table"
    assert "sql:dbo.Category|TABLE" in graph  # Down() only reverts
    down = graph.get_edge_data("cs:Forum.Core.Migrations.InitialCommit.Down|METHOD", "sql:dbo.Category|TABLE", "REFERENCES")
    assert (down["operation"], down["reverts"]) == ("drop_table", True)


def test_a_later_ef6_migration_adds_renames_and_drops_by_position():
    graph = graph_of(FILES)
    views = graph.nodes["sql:dbo.Topic.Views|COLUMN"]
    assert (views["path"], views["attrs"]["data_type"]) == ("Core/Migrations/201801011815079_Reshape.cs", "bigint")
    assert "sql:dbo.Topic.UrlSlug|COLUMN" in graph and "sql:dbo.Topic.Slug|COLUMN" not in graph
    assert "sql:dbo.Legacy|TABLE" not in graph
    # the positional `AddColumn(table, name, ...)` is not read in EF Core's `(name, table)` order
    assert "sql:Views|TABLE" not in graph and "sql:Views.dbo.Topic|COLUMN" not in graph


def test_create_table_outside_a_migration_makes_no_table():
    graph = graph_of(FILES)
    assert "sql:dbo.Ghost|TABLE" not in graph


def test_a_using_inside_a_namespace_resolves_from_that_namespace_outwards():
    graph = graph_of(FILES)
    mapped = {target for _, target, key in graph.out_edges("cs:Forum.Core.Models.Entities.Topic|TYPE", keys=True)
              if key == "MAPS_TO"}
    assert "sql:dbo.Topic|TABLE" in mapped  # `using Models.Entities;` in `Forum.Core.Data.Context`
    assert "ext:Topic|EXTERNAL" not in graph
    reference = graph.get_edge_data("cs:Forum.Core.Data.Context.ForumContext|TYPE",
                                    "cs:Forum.Core.Models.Entities.Topic|TYPE", "REFERENCES")
    assert reference.get("resolution") != "by_name" and "guess" not in reference  # named, not guessed


def test_a_file_level_using_is_not_qualified_by_the_namespace_below_it():
    graph = graph_of({**FILES, "Core/Data/Other/OtherContext.cs": FILE_LEVEL_USING})
    context = "cs:Forum.Core.Data.Other.OtherContext|TYPE"
    reference = graph.get_edge_data(context, "cs:Forum.Core.Models.Entities.Topic|TYPE", "REFERENCES")
    # only the one type of that name, found by its name alone: a guess, not what the using says
    assert reference is not None and (reference["resolution"], reference["guess"]) == ("by_name", True)


RENAME_INITIAL = '''
namespace M { using System.Data.Entity.Migrations;
public partial class Initial : DbMigration { public override void Up() {
    CreateTable("app.Topic", c => new { Id = c.Guid(nullable: false) }).PrimaryKey(t => t.Id);
} } }
'''
RENAME = '''
namespace M { using System.Data.Entity.Migrations;
public partial class Rename : DbMigration { public override void Up() { RenameTable(name: "app.Topic", newName: "Topics"); } } }
'''
RENAMED_COLUMN = '''
namespace M { using System.Data.Entity.Migrations;
public partial class More : DbMigration { public override void Up() { AddColumn("app.Topics", "Views", c => c.Int()); } } }
'''


def test_an_ef6_rename_keeps_the_tables_schema_so_later_migrations_on_the_new_name_apply():
    graph = graph_of({"Migrations/201501010000000_Initial.cs": RENAME_INITIAL,
                      "Migrations/201502010000000_Rename.cs": RENAME,
                      "Migrations/201503010000000_More.cs": RENAMED_COLUMN})
    tables = {node for node, data in graph.nodes(data=True) if data.get("kind") == "TABLE"}
    # `sp_rename` cannot move a table between schemas (EF6's `MoveTable` does that)
    assert "sql:app.Topics|TABLE" in tables and "sql:Topics|TABLE" not in tables
    assert "sql:app.Topics.Views|COLUMN" in graph
