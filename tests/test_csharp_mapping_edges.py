"""What ORM mapping code configures, edge by edge (`ef_configured`, `ef_graph`): the properties a
configuration names, model-building methods outside the DbContext, owned types, join tables,
value converters, and the mapping question answered from them. Each test names the edge that
must be made and one that must not (a configuration of Order maps no Customer table)."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.named import find_named
from ragstream.graph.questions import question_shape

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

DOMAIN = '''
namespace Shop.Domain;
public abstract class Entity { public int Id { get; set; } }
public class Customer : Entity { public string Name { get; set; } }
public class Address { public string Street { get; set; } public string City { get; set; } }
public class Money { public decimal Amount { get; set; } }
public readonly record struct SkuCode(string Value);
public class Order : Entity
{
    public Address Delivery { get; set; }
    public Money Total { get; set; }
    public SkuCode Code { get; set; }
    public Customer Buyer { get; set; }
    public int BuyerId { get; set; }
    public string Comment { get; set; }
    public Colour Tint { get; set; }
}
public class OrderLabel : Entity { public ICollection<Order> Orders { get; set; } }
'''

# imported by a `global using` in another file: the entity's file does not name the namespace
VALUES = '''
namespace Shop.Values;
public class Colour
{
    public static Colour White => new Colour { Code = "#FFFFFF" };
    public string Code { get; set; }
}
'''

CONTEXT = '''
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<Customer> Customers { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.ApplyConfigurationsFromAssembly(typeof(ShopContext).Assembly);
        modelBuilder.Entity<Customer>().ToTable("Customer").HasKey(c => c.Id);
    }
}
'''

ORDER_CONFIGURATION = '''
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Metadata.Builders;
using Shop.Domain;
namespace Shop.Data.Config;
public class OrderConfiguration : IEntityTypeConfiguration<Order>
{
    public void Configure(EntityTypeBuilder<Order> builder)
    {
        builder.ToTable("Order");
        builder.OwnsOne(o => o.Delivery, a => a.Property(x => x.Street).HasColumnName("DeliveryStreet"));
        builder.Property(o => o.Code).HasConversion(v => v.Value, v => new SkuCode(v));
        builder.HasOne(o => o.Buyer).WithMany(c => c.Orders).HasForeignKey(o => o.BuyerId);
        builder.OwnsOne(o => o.Tint);
    }
}
'''

MODULE_BUILDER = '''
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Billing;
public interface IModelPart { void Build(ModelBuilder modelBuilder); }
public class BillingModelPart : IModelPart
{
    public void Build(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<Order>(o =>
        {
            o.OwnsOne(x => x.Total);
        });
        RegisterAll(modelBuilder);
    }
    private static void RegisterAll(ModelBuilder modelBuilder)
    {
        foreach (var type in typeof(Entity).Assembly.GetTypes()) { modelBuilder.Entity(type); }
    }
    public void Unrelated(string text) { var t = typeof(Customer); }
}
'''

CONVERTERS = '''
using Vogen;
using Shop.Domain;
namespace Shop.Data.Config;
[EfCoreConverter<SkuCode>]
internal partial class Converters;
public class MoneyConverter : ValueConverter<Money, decimal>
{
    public MoneyConverter() : base(m => m.Amount, d => new Money()) { }
}
'''

NHIBERNATE = '''
using FluentNHibernate.Mapping;
using Shop.Domain;
namespace Shop.Mappings;
public class OrderLabelMapping : ClassMap<OrderLabel>
{
    public OrderLabelMapping()
    {
        Table("OrderLabel");
        Id(x => x.Id);
        HasManyToMany(x => x.Orders).Table("LabelOrder").ParentKeyColumn("LabelId").ChildKeyColumn("OrderId");
    }
}
'''

SQL = '''
CREATE TABLE dbo.[Order] (Id int, DeliveryStreet nvarchar(100), Code nvarchar(20), Total decimal,
    BuyerId int CONSTRAINT FK_Order_Customer FOREIGN KEY REFERENCES dbo.Customer (Id));
CREATE TABLE dbo.Customer (Id int, Name nvarchar(100));
CREATE TABLE dbo.OrderLabel (Id int);
CREATE TABLE dbo.LabelOrder (LabelId int, OrderId int);
'''

FILES = {
    "src/Domain/Model.cs": DOMAIN, "src/Values/Colour.cs": VALUES, "src/Data/ShopContext.cs": CONTEXT,
    "src/Data/Config/OrderConfiguration.cs": ORDER_CONFIGURATION, "src/Billing/BillingModelPart.cs": MODULE_BUILDER,
    "src/Data/Config/Converters.cs": CONVERTERS, "src/Mappings/OrderLabelMapping.cs": NHIBERNATE,
    "db/tables.sql": SQL,
}
ORDER = "cs:Shop.Domain.Order|TYPE"


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text)
              for path, text in files.items()]
    return build_graph(parsed)[0]


def edges(graph: nx.MultiDiGraph, source: str, key: str) -> dict[str, dict]:
    return {target: data for _, target, k, data in graph.out_edges(source, keys=True, data=True) if k == key}


def test_a_configuration_names_the_properties_it_configures_and_not_the_other_sides():
    graph = graph_of(FILES)
    members = edges(graph, "cs:Shop.Data.Config.OrderConfiguration|TYPE", "REFERENCES")[ORDER]["members"]
    assert members["Delivery"] == {"configured": "OwnsOne", "owned": True}
    assert members["Code"]["conversion"] is True
    assert members["Buyer"] == {"configured": "HasOne"}
    assert members["BuyerId"] == {"configured": "HasForeignKey"}  # the key this side of `HasOne().WithMany()` holds
    # `WithMany(c => c.Orders)` names the other side, the owned builder's lambda the owned type's member
    assert {"Orders", "Street", "Comment"}.isdisjoint(members)
    # attributes, not edges: a walk of the graph does not reach each configured property
    assert "cs:Shop.Domain.Order.Delivery|PROPERTY" not in edges(graph, "cs:Shop.Data.Config.OrderConfiguration|TYPE",
                                                                 "REFERENCES")


def test_an_owned_type_maps_to_its_owners_table_and_to_no_other():
    graph = graph_of(FILES)
    delivery = edges(graph, "cs:Shop.Domain.Address|TYPE", "MAPS_TO")
    assert delivery["sql:dbo.Order|TABLE"]["via"] == "owned_type"
    assert "sql:dbo.Customer|TABLE" not in delivery
    # a type held but not owned (a navigation) keeps its own table only
    assert set(edges(graph, "cs:Shop.Domain.Customer|TYPE", "MAPS_TO")) == {"sql:dbo.Customer|TABLE"}
    # owned through a module's model builder
    assert edges(graph, "cs:Shop.Domain.Money|TYPE", "MAPS_TO")["sql:dbo.Order|TABLE"]["via"] == "owned_type"


def test_a_model_building_method_references_the_entities_it_configures_and_the_base_it_registers():
    graph = graph_of(FILES)
    build = edges(graph, "cs:Shop.Billing.BillingModelPart.Build|METHOD", "REFERENCES")
    assert build[ORDER]["via"] == "model_builder"
    assert build[ORDER]["members"] == {"Total": {"configured": "OwnsOne", "owned": True}}
    assert "cs:Shop.Domain.Customer|TYPE" not in build
    registers = edges(graph, "cs:Shop.Billing.BillingModelPart.RegisterAll|METHOD", "REFERENCES")
    assert registers["cs:Shop.Domain.Entity|TYPE"]["registers"] == "subtypes"
    # a method without a ModelBuilder builds no model, whatever types it names
    assert "cs:Shop.Domain.Customer|TYPE" not in edges(graph, "cs:Shop.Billing.BillingModelPart.Unrelated|METHOD",
                                                       "REFERENCES")
    on_model = edges(graph, "cs:Shop.Data.ShopContext.OnModelCreating|METHOD", "REFERENCES")
    assert on_model["cs:Shop.Domain.Customer|TYPE"]["via"] == "model_builder"
    assert ORDER not in on_model


def test_value_converters_reference_the_type_they_convert():
    graph = graph_of(FILES)
    assert edges(graph, "cs:Shop.Data.Config.Converters|TYPE", "REFERENCES")["cs:Shop.Domain.SkuCode|TYPE"]["via"] \
        == "value_converter"
    money = edges(graph, "cs:Shop.Data.Config.MoneyConverter|TYPE", "REFERENCES")
    assert money["cs:Shop.Domain.Money|TYPE"]["via"] == "value_converter"
    assert "cs:Shop.Domain.Order|TYPE" not in money


def test_a_classmap_names_its_properties_and_its_collections_join_table():
    graph = graph_of(FILES)
    mapped = edges(graph, "cs:Shop.Mappings.OrderLabelMapping|TYPE", "REFERENCES")
    assert mapped["cs:Shop.Domain.OrderLabel|TYPE"]["members"] == {
        "Id": {"configured": "Id"},
        "Orders": {"configured": "HasManyToMany", "table": "LabelOrder", "many_to_many": True}}
    # a join table is named by the mapping, not mapped: writing a label writes no LabelOrder row by itself
    assert "sql:dbo.LabelOrder|TABLE" not in edges(graph, "cs:Shop.Domain.OrderLabel|TYPE", "MAPS_TO")
    assert "sql:dbo.LabelOrder|TABLE" not in edges(graph, ORDER, "MAPS_TO")


def answer(graph: nx.MultiDiGraph, question: str) -> list[str]:
    found = answer_from_graph(graph, question, find_named(graph, question), [], lambda ids: {})
    assert found is not None and found.shape == "mapping"
    return found.node_ids(graph)


def test_how_an_entity_is_stored_names_its_configuration_model_code_table_and_dbset_first():
    graph = graph_of(FILES)
    ids = answer(graph, "How is the Customer entity mapped to its table?")
    assert ids[:2] == ["cs:Shop.Domain.Customer|TYPE", "sql:dbo.Customer|TABLE"]
    assert {"cs:Shop.Data.ShopContext.OnModelCreating|METHOD", "cs:Shop.Data.ShopContext.Customers|PROPERTY"} \
        <= set(ids)
    assert "sql:dbo.Order|TABLE" not in ids and "cs:Shop.Data.Config.OrderConfiguration.Configure|METHOD" not in ids


def test_an_asked_property_brings_the_type_it_holds_and_that_types_converters():
    graph = graph_of(FILES)
    ids = answer(graph, "How is an order's delivery address stored in the Order table?")
    assert ids.index("cs:Shop.Data.Config.OrderConfiguration.Configure|METHOD") < ids.index(
        "cs:Shop.Domain.Order.Delivery|PROPERTY") < ids.index("cs:Shop.Domain.Address|TYPE")
    assert "cs:Shop.Domain.Customer|TYPE" not in ids


def test_a_value_object_is_answered_by_its_converters_and_the_entities_holding_it():
    graph = graph_of(FILES)
    ids = answer(graph, "How are SkuCode values stored as database columns?")
    assert ids[:4] == ["cs:Shop.Domain.SkuCode|TYPE", "cs:Shop.Data.Config.Converters|TYPE",
                       "cs:Shop.Domain.Order.Code|PROPERTY", "cs:Shop.Data.Config.OrderConfiguration.Configure|METHOD"]
    assert "sql:dbo.Order|TABLE" in ids and "sql:dbo.Customer|TABLE" not in ids


def test_an_entity_registered_by_its_base_type_is_configured_by_the_registering_methods():
    registered = {**FILES, "src/Data/ShopContext.cs": CONTEXT.replace(
        "public DbSet<Customer> Customers { get; set; }", "")}
    graph = graph_of(registered)
    ids = answer(graph, "How is OrderLabel stored in the database?")
    assert {"cs:Shop.Billing.BillingModelPart.RegisterAll|METHOD", "cs:Shop.Billing.BillingModelPart.Build|METHOD",
            "cs:Shop.Domain.Entity|TYPE", "cs:Shop.Mappings.OrderLabelMapping|TYPE"} <= set(ids)


def test_a_classmap_answers_with_the_class_its_constructor_and_the_join_table():
    graph = graph_of(FILES)
    ids = answer(graph, "How is OrderLabel mapped?")
    assert ids[:5] == ["cs:Shop.Domain.OrderLabel|TYPE", "sql:dbo.OrderLabel|TABLE", "sql:dbo.LabelOrder|TABLE",
                       "cs:Shop.Mappings.OrderLabelMapping.OrderLabelMapping|METHOD",
                       "cs:Shop.Mappings.OrderLabelMapping|TYPE"]
    assert "sql:dbo.Customer|TABLE" not in ids and "cs:Shop.Data.Config.OrderConfiguration|TYPE" not in ids


def test_an_owned_type_of_a_namespace_the_entity_file_does_not_name_maps_and_answers_with_its_properties():
    graph = graph_of(FILES)
    assert edges(graph, "cs:Shop.Values.Colour|TYPE", "MAPS_TO")["sql:dbo.Order|TABLE"]["via"] == "owned_type"
    ids = answer(graph, "How is an order's tint stored in the database?")
    assert ids.index("cs:Shop.Domain.Order.Tint|PROPERTY") < ids.index("cs:Shop.Values.Colour|TYPE") \
        < ids.index("cs:Shop.Values.Colour.Code|PROPERTY")
    assert "cs:Shop.Domain.Address.Street|PROPERTY" not in ids
    assert "cs:Shop.Values.Colour.White|PROPERTY" not in ids  # static: no column


def test_a_navigation_leads_to_the_table_its_foreign_key_references_and_the_entity_name_names_no_property():
    graph = graph_of(FILES)
    ids = answer(graph, "How is an order linked to its buyer in the database?")
    assert ids[:2] == [ORDER, "sql:dbo.Order|TABLE"]
    assert ids.index("cs:Shop.Domain.Order.Buyer|PROPERTY") < ids.index("sql:dbo.Customer|TABLE")
    assert ids.index("cs:Shop.Domain.Order.Buyer|PROPERTY") < ids.index("cs:Shop.Domain.Order.BuyerId|PROPERTY")
    assert "cs:Shop.Domain.OrderLabel.Orders|PROPERTY" not in ids and "sql:dbo.LabelOrder|TABLE" not in ids


def test_how_two_entities_are_linked_in_the_database_is_a_mapping_question():
    assert question_shape("How is an order linked to its shipping and billing addresses in the database?") == "mapping"
    assert question_shape("How are tags linked to blog entries in the database mapping?") == "mapping"
    assert question_shape("How is an order created, from the controller down to the tables?") == "flow"


def test_what_runs_when_something_is_stored_is_no_mapping_question():
    assert question_shape("How are the domain events a handler raises dispatched and stored when the changes are "
                          "committed?") is None
    assert question_shape("Where is a session token generated and stored when a user logs in?") is None
    # how an object itself is stored stays a mapping question
    assert question_shape("How is a todo list's colour stored in the database?") == "mapping"
    assert question_shape("How are an item's Priority and its assigned contributor stored in the Items table?") == "mapping"


def test_how_an_object_is_mapped_stays_a_mapping_question_beside_another_verb_or_a_when_of_no_event():
    assert question_shape("How is the Address value object mapped and stored in the database?") == "mapping"
    assert question_shape("How is an order's shipping address owned and stored in the database?") == "mapping"
    assert question_shape("How is the Customer entity mapped when the table name differs from the class "
                          "name?") == "mapping"
    assert question_shape("How is a Customer persisted when using the EF Core mapping?") == "mapping"
    # a `when` naming an event still asks what runs
    assert question_shape("How is an order's status stored when it is shipped?") is None


DBSETS = '''
using System.Linq;
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<Customer> Customers => Set<Customer>();
    public IQueryable<Order> Recent => Orders.Where(o => o.Id > 10);
    public List<Customer> Cached { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<Order>().ToTable("Order");
        modelBuilder.Entity<Customer>().ToTable("Customer");
    }
}
'''


def test_a_dbset_property_maps_to_its_entitys_table_and_other_properties_do_not():
    """`DbSet<T> X { get; set; }` and `DbSet<T> X => Set<T>()` are the context's handles on T's
    settled table (the `ToTable` one); a query over a DbSet or a list of entities is no handle."""
    graph = graph_of({"src/Domain/Model.cs": DOMAIN, "src/Values/Colour.cs": VALUES,
                      "src/Data/ShopContext.cs": DBSETS, "db/tables.sql": SQL})
    orders = edges(graph, "cs:Shop.Data.ShopContext.Orders|PROPERTY", "MAPS_TO")
    assert list(orders) == ["sql:dbo.Order|TABLE"]
    assert orders["sql:dbo.Order|TABLE"]["via"] == "dbset" and orders["sql:dbo.Order|TABLE"]["entity"] == ORDER
    assert list(edges(graph, "cs:Shop.Data.ShopContext.Customers|PROPERTY", "MAPS_TO")) == ["sql:dbo.Customer|TABLE"]
    assert not edges(graph, "cs:Shop.Data.ShopContext.Recent|PROPERTY", "MAPS_TO")
    assert not edges(graph, "cs:Shop.Data.ShopContext.Cached|PROPERTY", "MAPS_TO")


def test_dropping_a_table_breaks_its_dbset_and_its_mapping_names_the_dbset():
    graph = graph_of({"src/Domain/Model.cs": DOMAIN, "src/Values/Colour.cs": VALUES,
                      "src/Data/ShopContext.cs": DBSETS, "db/tables.sql": SQL})
    for question, shape in (("What breaks if the Customer table is dropped?", "impact"),
                            ("What uses the Customer table?", "list")):
        found = answer_from_graph(graph, question, find_named(graph, question), [], lambda ids: {})
        assert found is not None and found.shape == shape
        ids = [item.id for item in found.items]
        assert "cs:Shop.Data.ShopContext.Customers|PROPERTY" in ids and "cs:Shop.Data.ShopContext.Orders|PROPERTY" not in ids
    mapped = answer(graph, "How is the Customer entity mapped to its table?")
    assert "cs:Shop.Data.ShopContext.Customers|PROPERTY" in mapped and "cs:Shop.Data.ShopContext.Orders|PROPERTY" not in mapped
