"""Where an answer puts a schema migration's code (`relations.place_rank`): a list of what the code
does as it runs puts all of it after the application's code, with the scripts that created or
altered the table (`running`); an impact answer puts only its revert (`Down`) there and keeps the
`Up` that declares the table with the code. Each test names the order that must come out and the
near miss that must not move."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.named import Named, find_named
from ragstream.graph.relations import (by_relevance, impact_of, place_rank, reverting_migration, schema_migration,
                                       sql_runners)
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph

ENTITIES = """
namespace Blog.Domain;
public class Tag { public int Id { get; set; } public string Title { get; set; } }
"""

CONTEXT = """
using Microsoft.EntityFrameworkCore;
using Blog.Domain;
namespace Blog.Data;
public class BlogContext : DbContext
{
    public DbSet<Tag> Tags { get; set; }
}
"""

MIGRATION = """
using Microsoft.EntityFrameworkCore.Migrations;
namespace Blog.Data.Migrations;
public partial class AddTags : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.CreateTable(name: "Tags", columns: table => new
        {
            Id = table.Column<int>(nullable: false),
            Title = table.Column<string>(nullable: true)
        });
    }

    protected override void Down(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.DropTable(name: "Tags");
    }

    protected void Clean(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.Sql("DELETE FROM Tags WHERE Title IS NULL");
    }
}
"""

REPOSITORY = """
using System.Linq;
using Blog.Domain;
namespace Blog.Data;
public class TagRepository
{
    private readonly BlogContext _db;
    public TagRepository(BlogContext db) { _db = db; }
    public Tag Find(int id) { return _db.Tags.FirstOrDefault(t => t.Id == id); }
}
"""

# Named like one, but no `Migration` subclass: an application's service that moves rows at run time.
DATA_MIGRATION = """
using System.Linq;
using Blog.Domain;
namespace Blog.Services;
public class TagMigration
{
    private readonly Blog.Data.BlogContext _db;
    public TagMigration(Blog.Data.BlogContext db) { _db = db; }
    public int Count() { return _db.Tags.Count(); }
}
"""

PURGE = """
using Dapper;
using System.Data;
namespace Blog.Data;
public class TagPurge
{
    private readonly IDbConnection _conn;
    public TagPurge(IDbConnection conn) { _conn = conn; }
    public void Purge() { _conn.Execute("DELETE FROM Tags WHERE Title IS NULL"); }
}
"""

TABLE = "sql:Tags|TABLE"
UP = "cs:Blog.Data.Migrations.AddTags.Up|METHOD"
DOWN = "cs:Blog.Data.Migrations.AddTags.Down|METHOD"
FIND = "cs:Blog.Data.TagRepository.Find|METHOD"
COUNT = "cs:Blog.Services.TagMigration.Count|METHOD"
CLEAN = "cs:Blog.Data.Migrations.AddTags.Clean|METHOD"
PURGE_METHOD = "cs:Blog.Data.TagPurge.Purge|METHOD"


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    return build_graph([parse_csharp(path, text) for path, text in files.items()])[0]


def blog() -> nx.MultiDiGraph:
    return graph_of({"src/Domain/Tag.cs": ENTITIES, "src/Data/BlogContext.cs": CONTEXT,
                     "src/Data/Migrations/20240101_AddTags.cs": MIGRATION, "src/Data/TagRepository.cs": REPOSITORY,
                     "src/Services/TagMigration.cs": DATA_MIGRATION, "src/Data/TagPurge.cs": PURGE})


def test_a_tables_impact_keeps_the_migration_declaring_it_with_the_code_and_puts_its_revert_last():
    graph = blog()
    items = impact_of(graph, Named(TABLE, "TABLE", "Tags", "table", None), lambda ids: {})
    assert {UP, DOWN, FIND, COUNT} <= {item.id for item in items}  # all of it still listed
    order = [item.id for item in by_relevance(graph, items, ("tags",), ("REFERENCES", "READS"), [DOWN, UP])]
    # what breaks when the table changes: the Up declaring it is placed as the code is (the asked
    # relation first); the Down, found first by the search, only undoes it and goes after the code
    assert order.index(UP) < order.index(FIND) < order.index(DOWN)
    assert order.index(COUNT) < order.index(DOWN)


def test_a_migrations_class_and_members_are_its_code_the_table_it_creates_is_not():
    graph = blog()
    assert schema_migration(graph, "cs:Blog.Data.Migrations.AddTags|TYPE") and schema_migration(graph, UP)
    assert place_rank(graph, UP, running=True) == 1 and place_rank(graph, UP) == 0
    assert reverting_migration(graph, DOWN) and not reverting_migration(graph, UP)
    assert place_rank(graph, DOWN) == 1 and place_rank(graph, DOWN, running=True) == 1
    # a migration's other method that fills rows (`Sql(...)`) reverts nothing: the code's place in an impact
    assert not reverting_migration(graph, CLEAN) and place_rank(graph, CLEAN) == 0
    # the table it declares is the schema itself, ranked as the application's: it is what the question names
    assert graph.nodes[TABLE].get("parent") == "cs:Blog.Data.Migrations.AddTags|TYPE"
    assert not schema_migration(graph, TABLE) and place_rank(graph, TABLE, running=True) == 0
    # a class named for migrating data but no migration: the application's code
    assert not schema_migration(graph, COUNT) and place_rank(graph, COUNT, running=True) == 0


def test_code_running_sql_is_listed_before_a_migration_running_sql_the_search_ranked_first():
    graph = blog()
    items = sql_runners(graph)
    assert {CLEAN, PURGE_METHOD} <= {item.id for item in items}  # both run SQL against Tags: both listed
    order = [item.id for item in by_relevance(graph, items, ("delete", "tags"), ("runs SQL", "READS", "WRITES"),
                                              [CLEAN, PURGE_METHOD], running=True)]
    # the same relation, the migration found first: the application's code still leads, and the
    # table it deletes from (one hop further) comes before the migration too
    assert order.index(PURGE_METHOD) < order.index(TABLE) < order.index(CLEAN)


def test_which_code_deletes_rows_lists_the_application_before_the_migration():
    graph = blog()
    question = "Which code deletes rows from the Tags table?"
    answer = answer_from_graph(graph, question, find_named(graph, question), [CLEAN, PURGE_METHOD], lambda ids: {})
    assert answer is not None and answer.shape == "list"
    order = [item.id for item in answer.items]
    assert order.index(PURGE_METHOD) < order.index(CLEAN)  # the migration still listed, after the code


def test_the_x_view_names_a_read_models_table_before_a_table_named_x():
    """"the draft order view" is cqrs-journey's `OrdersViewV3` (a read model's table) before the
    `Orders` table; "the orders table" stays `Orders`, and "the users view" a table named so."""
    graph = nx.MultiDiGraph()
    for name in ("ConferenceManagement.Orders", "ConferenceRegistration.OrdersViewV3",
                 "ConferenceRegistration.OrderItemsViewV3", "dbo.Users"):
        graph.add_node(f"sql:{name}|TABLE", kind="TABLE", name=name)
    assert [n.id for n in find_named(graph, "Which methods write the attendee's draft order view?")] == [
        "sql:ConferenceRegistration.OrdersViewV3|TABLE"]
    assert [n.id for n in find_named(graph, "Which methods write the orders table?")] == [
        "sql:ConferenceManagement.Orders|TABLE"]
    assert [n.id for n in find_named(graph, "What reads the users view?")] == ["sql:dbo.Users|TABLE"]


def test_an_impact_question_about_a_table_it_describes_takes_the_searched_table():
    """"the table that stores the labels put on posts" names no table in the graph's words; the
    first table among the search's best hits is its subject (Moonglade's "the table that stores
    received webmentions": `Mention`), and the answer is that table's impact. Without a table among
    the best hits, or a question that calls nothing a table, there is no such subject."""
    graph = blog()
    question = "If the table that stores the labels put on posts changed, which code would be affected?"
    answer = answer_from_graph(graph, question, [], [FIND, TABLE, CLEAN], lambda ids: {})
    assert answer is not None and answer.shape == "impact" and [s.id for s in answer.subjects] == [TABLE]
    assert {FIND, COUNT} <= {item.id for item in answer.items}
    far = [f"cs:Blog.Other{i}|TYPE" for i in range(10)]
    assert answer_from_graph(graph, question, [], [*far, TABLE], lambda ids: {}) is None
    assert answer_from_graph(graph, "If the labels put on posts changed, which code would be affected?", [],
                             [FIND, TABLE], lambda ids: {}) is None
