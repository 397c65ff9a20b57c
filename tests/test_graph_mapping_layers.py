"""The answer to a mapping question, composed in layers (`graph/mappings.py`): every asked
entity's table and mapping code first, then the keys relating the asked entities and the kinds
of an entity the question names, then the migration creating its table, its other kinds, the
base declaring its columns, the code filling it from rows; an unasked property, a dropping
migration, an empty base and a library's generic base are not named."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.mappings import mapping_answer, mapping_of
from ragstream.graph.named import find_named, named_node
from ragstream.graph.questions import asked_words
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

DOMAIN = """
using System;
using System.Collections.Generic;
namespace Shop.Domain;
public abstract class EntityBase { }
public abstract class Audited : EntityBase { public DateTime Created { get; set; } }
public class Customer { public int Id { get; set; } public string Name { get; set; } public List<Order> Orders { get; set; } }
public class Order : Audited
{
    public int Id { get; set; }
    public int CustomerId { get; set; }
    public Customer Customer { get; set; }
    public int Total { get; set; }
}
public class RushOrder : Order { public int Hours { get; set; } }
public class GiftOrder : Order { public string Note { get; set; } }
"""

CONFIGURATION = """
using System.Collections.Generic;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<Customer> Customers { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder) => modelBuilder.ApplyConfigurationsFromAssembly(typeof(ShopContext).Assembly);
}
public class OrderConfiguration : IEntityTypeConfiguration<Order>
{
    public void Configure(EntityTypeBuilder<Order> builder)
    {
        builder.ToTable("Orders");
        builder.HasOne(o => o.Customer).WithMany(c => c.Orders).HasForeignKey(o => o.CustomerId);
    }
}
public class CustomerConfiguration : IEntityTypeConfiguration<Customer>
{
    public void Configure(EntityTypeBuilder<Customer> builder) => builder.ToTable("Customers");
}
public class RushOrderConfiguration : IEntityTypeConfiguration<RushOrder>
{
    public void Configure(EntityTypeBuilder<RushOrder> builder) => builder.ToTable("RushOrders");
}
public class GiftOrderConfiguration : IEntityTypeConfiguration<GiftOrder>
{
    public void Configure(EntityTypeBuilder<GiftOrder> builder) => builder.ToTable("GiftOrders");
}
public class OrderComparer : IComparer<Order> { public int Compare(Order a, Order b) => a.Total - b.Total; }
"""

MIGRATION = """
using Microsoft.EntityFrameworkCore.Migrations;
namespace Shop.Data.Migrations;
public partial class Initial : Migration
{
    protected override void Up(MigrationBuilder migrationBuilder)
    {
        migrationBuilder.CreateTable(
            name: "Customers",
            columns: table => new { Id = table.Column<int>(nullable: false), Name = table.Column<string>(nullable: true) },
            constraints: table => { table.PrimaryKey("PK_Customers", x => x.Id); });
        migrationBuilder.CreateTable(
            name: "Orders",
            columns: table => new
            {
                Id = table.Column<int>(nullable: false),
                CustomerId = table.Column<int>(nullable: false),
                Total = table.Column<int>(nullable: false),
                Created = table.Column<DateTime>(nullable: false)
            },
            constraints: table =>
            {
                table.PrimaryKey("PK_Orders", x => x.Id);
                table.ForeignKey(name: "FK_Orders_Customers_CustomerId", column: x => x.CustomerId,
                    principalTable: "Customers", principalColumn: "Id", onDelete: ReferentialAction.Cascade);
            });
        migrationBuilder.CreateTable(name: "RushOrders", columns: table => new { Id = table.Column<int>(nullable: false) });
        migrationBuilder.CreateTable(name: "GiftOrders", columns: table => new { Id = table.Column<int>(nullable: false) });
    }

    protected override void Down(MigrationBuilder migrationBuilder) => migrationBuilder.DropTable(name: "Orders");
}
"""


def shop() -> nx.MultiDiGraph:
    files = [parse_csharp("src/Domain/Shop.cs", DOMAIN), parse_csharp("src/Data/Configuration.cs", CONFIGURATION),
             parse_csharp("src/Data/Migrations/Initial.cs", MIGRATION)]
    return build_graph(files)[0]


GRAPH = shop()
ORDER, CUSTOMER = "cs:Shop.Domain.Order|TYPE", "cs:Shop.Domain.Customer|TYPE"


def _answer(subjects: list[str], question: str) -> list[str]:
    return [item.id for item in mapping_answer(GRAPH, [named_node(GRAPH, s, "words") for s in subjects],
                                               asked_words(question))]


def test_two_asked_entities_are_named_with_their_mapping_before_the_keys_that_relate_them():
    ids = _answer([ORDER, CUSTOMER], "How is an order linked to its customer?")
    order_config, customer_config = ("cs:Shop.Data.OrderConfiguration.Configure|METHOD",
                                     "cs:Shop.Data.CustomerConfiguration.Configure|METHOD")
    keys = ("cs:Shop.Domain.Order.CustomerId|PROPERTY", "cs:Shop.Domain.Order.Customer|PROPERTY")
    assert {order_config, customer_config, *keys} <= set(ids)
    # both mappings first: the customer's configuration comes before the order's keys and the order's migration
    assert ids.index(customer_config) < min(ids.index(k) for k in keys)
    up = "cs:Shop.Data.Migrations.Initial.Up|METHOD"
    assert max(ids.index(k) for k in keys) < ids.index(up)
    assert "cs:Shop.Domain.Order.Total|PROPERTY" not in ids  # neither asked nor a key
    assert "cs:Shop.Data.Migrations.Initial.Down|METHOD" not in ids  # drops the table: it creates nothing


def test_keys_are_named_when_the_question_asks_for_them_and_not_otherwise():
    keyed = _answer([ORDER], "How is the Orders table keyed?")
    assert {"cs:Shop.Domain.Order.Id|PROPERTY", "cs:Shop.Domain.Order.CustomerId|PROPERTY"} <= set(keyed)
    assert "cs:Shop.Domain.Order.Id|PROPERTY" not in _answer([ORDER], "Where is the order stored?")


def test_the_kind_the_question_names_comes_before_the_other_kinds_and_the_base_declaring_columns_is_named():
    ids = _answer([ORDER], "How are rush orders stored?")
    rush = ("cs:Shop.Data.RushOrderConfiguration.Configure|METHOD", "sql:RushOrders|TABLE")
    gift = ("cs:Shop.Data.GiftOrderConfiguration.Configure|METHOD", "sql:GiftOrders|TABLE")
    assert set(rush) | set(gift) <= set(ids)
    assert max(ids.index(r) for r in rush) < min(ids.index(g) for g in gift)
    assert "cs:Shop.Domain.Audited|TYPE" in ids  # declares the order's Created column
    assert "cs:Shop.Domain.EntityBase|TYPE" not in ids  # declares nothing
    assert "cs:Shop.Data.OrderComparer|TYPE" not in ids  # a library's generic base: no repository of orders


def test_a_table_names_its_entity_and_mapping_code_before_the_migration_creating_it():
    ids = [item.id for item in mapping_of(GRAPH, named_node(GRAPH, "sql:Orders|TABLE", "table"), asked_words(
        "Which class is stored in the Orders table?"))]
    assert ids[:2] == [ORDER, "cs:Shop.Data.OrderConfiguration.Configure|METHOD"]
    assert "cs:Shop.Data.Migrations.Initial.Up|METHOD" in ids


DTO = """
namespace Shop.Api;
using Shop.Domain;
public class OrderDto { public int Total { get; set; } }
public static class OrderMapper { public static OrderDto ToDto(this Order order) => new OrderDto { Total = order.Total }; }
public static class OrderRules { public static bool IsLarge(Order order) => order.Total > 100; }
"""


def test_what_converts_the_entity_is_named_when_the_question_speaks_of_converting():
    built = build_graph([parse_csharp("src/Domain/Shop.cs", DOMAIN), parse_csharp("src/Data/Configuration.cs", CONFIGURATION),
                         parse_csharp("src/Api/OrderDto.cs", DTO)])[0]

    def ids(question: str) -> list[str]:
        return [i.id for i in mapping_of(built, named_node(built, ORDER, "words"), asked_words(question))]
    converted = ids("How is an order row turned into what the API returns?")
    assert {"cs:Shop.Api.OrderMapper.ToDto|METHOD", "cs:Shop.Api.OrderDto|TYPE"} <= set(converted)
    assert "cs:Shop.Api.OrderRules.IsLarge|METHOD" not in converted  # returns no type of the repository
    assert "cs:Shop.Api.OrderMapper.ToDto|METHOD" not in ids("Where is the order stored?")


STACKS = """
namespace Stacks.Types;
[Alias("technology_stack")] public class TechnologyStack { public int Id { get; set; } }
[Alias("user_activity")] public class UserActivity { public int Id { get; set; } }
[Alias("technology_choice")] public class TechnologyChoice { public int Id { get; set; } }
"""
STACKS_SCHEMA = """CREATE TABLE dbo.technology_stack (id INT PRIMARY KEY);
CREATE TABLE dbo.user_activity (id INT PRIMARY KEY);
CREATE TABLE dbo.technology_choice (id INT PRIMARY KEY);"""


def test_a_mapping_question_naming_one_table_by_name_and_another_in_words_is_about_both():
    built = build_graph([parse_csharp("src/Types.cs", STACKS), parse_sql("db/schema.sql", STACKS_SCHEMA, "tsql")])[0]
    question = "How are technology_stack rows and user activity rows stored in the database?"
    found = answer_from_graph(built, question, find_named(built, question), [], lambda ids: {})
    assert found is not None and found.shape == "mapping"
    ids = found.node_ids(built)
    assert {"sql:dbo.user_activity|TABLE", "cs:Stacks.Types.UserActivity|TYPE", "cs:Stacks.Types.TechnologyStack|TYPE"} <= set(ids)
    assert "cs:Stacks.Types.TechnologyChoice|TYPE" not in ids  # a table the question does not name


READING = """
using System.Collections.Generic;
using System.Linq;
using Shop.Domain;
namespace Shop.Data;
public class OrderReader
{
    private readonly ShopContext _db;
    public OrderReader(ShopContext db) { _db = db; }
    public List<Order> Recent() => _db.Orders.Where(o => o.Total > 0).ToList();
}
"""


def test_the_code_reading_the_rows_is_named_when_reading_is_asked_and_not_otherwise():
    files = [parse_csharp("src/Domain/Shop.cs", DOMAIN), parse_csharp("src/Data/Configuration.cs", CONFIGURATION),
             parse_csharp("src/Data/Migrations/Initial.cs", MIGRATION), parse_csharp("src/Data/OrderReader.cs", READING)]
    graph = build_graph(files)[0]
    reader = "cs:Shop.Data.OrderReader.Recent|METHOD"
    assert graph.has_edge(reader, "sql:Orders|TABLE", "READS")

    def answer(question: str) -> list[str]:
        return [item.id for item in mapping_answer(graph, [named_node(graph, ORDER, "words")], asked_words(question))]

    asked = answer("Which class are rows of the Orders table mapped to, and which methods load them?")
    assert reader in asked
    assert asked.index(reader) < asked.index("cs:Shop.Data.Migrations.Initial.Up|METHOD")  # asked before the storage
    assert reader in answer("How are rows of the Orders table mapped to C# objects?")
    assert reader not in answer("Where is the order stored?")


def test_a_mapping_answer_over_tables_said_in_words_leaves_the_callers_subjects_as_they_were():
    # `main_subjects` may hand back the caller's own list: the tables said in words join a copy
    named = [named_node(GRAPH, "sql:Orders|TABLE", "words")]  # no cue: `main_subjects` keeps the list itself
    answer = answer_from_graph(GRAPH, "How are the Orders and Customers tables mapped?", named, [], lambda ids: {})
    assert answer is not None and {s.id for s in answer.subjects} == {"sql:Orders|TABLE", "sql:Customers|TABLE"}
    assert [n.id for n in named] == ["sql:Orders|TABLE"]


def test_a_mapping_question_naming_nothing_is_about_the_best_searched_table_or_entity():
    """"How is the thing people pay for persisted?" names no object the graph knows: the best search hit
    that is a table or a mapped entity is its subject; a method hit is none, and without such a hit
    there is no mapping answer."""
    question = "How is the thing people pay for persisted, and which columns does it have?"
    assert answer_from_graph(GRAPH, question, [], ["cs:Shop.Data.ShopContext.OnModelCreating|METHOD"],
                             lambda ids: {}) is None
    found = answer_from_graph(GRAPH, question, [], ["cs:Shop.Data.ShopContext.OnModelCreating|METHOD", ORDER],
                              lambda ids: {})
    assert found is not None and found.shape == "mapping" and [s.id for s in found.subjects] == [ORDER]
    assert "cs:Shop.Data.OrderConfiguration.Configure|METHOD" in found.node_ids(GRAPH)


def test_a_list_question_about_a_table_said_in_unknown_words_is_about_the_best_searched_table():
    """"Which methods read rows from the purchase records table?" names the table in words the graph does
    not know: the first table among the search's hits is its subject; "which table holds ..." asks for a
    table, and takes none from the search."""
    table = next(n for n, d in GRAPH.nodes(data=True) if d.get("kind") == "TABLE" and d["name"].endswith("Orders"))
    hits = ["cs:Shop.Data.ShopContext.OnModelCreating|METHOD", table]
    found = answer_from_graph(GRAPH, "Which methods read rows from the purchase records table?", [], hits,
                              lambda ids: {})
    assert found is not None and found.shape == "list" and [s.id for s in found.subjects] == [table]
    assert answer_from_graph(GRAPH, "Which code and which table hold the purchase records?", [], hits,
                             lambda ids: {}) is None
