"""What ORM mapping code configures, edge by edge (`ef_configured`, `ef_graph`): the properties a
configuration names, model-building methods outside the DbContext, owned types, join tables,
value converters, and the mapping question answered from them. Each test names the edge that
must be made and one that must not (a configuration of Order maps no Customer table)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

DOMAIN = '''
namespace Shop.Domain;
public abstract class Entity { public int Id { get; set; } }
public class Customer : Entity { public string Name { get; set; } }
public class Address { public string Street { get; set; } public string City { get; set; } }
public class Money { public decimal Amount { get; set; } }
public readonly record struct Sku(string Value);
public class Order : Entity
{
    public Address Delivery { get; set; }
    public Money Total { get; set; }
    public Sku Code { get; set; }
    public Customer Buyer { get; set; }
    public int BuyerId { get; set; }
    public string Comment { get; set; }
}
public class Label : Entity { public ICollection<Order> Orders { get; set; } }
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
        builder.Property(o => o.Code).HasConversion(v => v.Value, v => new Sku(v));
        builder.HasOne(o => o.Buyer).WithMany(c => c.Orders).HasForeignKey(o => o.BuyerId);
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
[EfCoreConverter<Sku>]
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
public class LabelMapping : ClassMap<Label>
{
    public LabelMapping()
    {
        Table("Label");
        Id(x => x.Id);
        HasManyToMany(x => x.Orders).Table("LabelOrder").ParentKeyColumn("LabelId").ChildKeyColumn("OrderId");
    }
}
'''

SQL = '''
CREATE TABLE dbo.[Order] (Id int, DeliveryStreet nvarchar(100), Code nvarchar(20), Total decimal, BuyerId int);
CREATE TABLE dbo.Customer (Id int, Name nvarchar(100));
CREATE TABLE dbo.Label (Id int);
CREATE TABLE dbo.LabelOrder (LabelId int, OrderId int);
'''

FILES = {
    "src/Domain/Model.cs": DOMAIN, "src/Data/ShopContext.cs": CONTEXT,
    "src/Data/Config/OrderConfiguration.cs": ORDER_CONFIGURATION, "src/Billing/BillingModelPart.cs": MODULE_BUILDER,
    "src/Data/Config/Converters.cs": CONVERTERS, "src/Mappings/LabelMapping.cs": NHIBERNATE,
    "db/tables.sql": SQL,
}
ORDER = "cs:Shop.Domain.Order|TYPE"


def graph_of(files: dict[str, str]) -> nx.MultiDiGraph:
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text)
              for path, text in files.items()]
    return build_graph(parsed)[0]


def edges(graph: nx.MultiDiGraph, source: str, key: str) -> dict[str, dict]:
    return {target: data for _, target, k, data in graph.out_edges(source, keys=True, data=True) if k == key}


def test_a_configuration_references_the_properties_it_names_and_not_the_other_sides():
    graph = graph_of(FILES)
    configured = edges(graph, "cs:Shop.Data.Config.OrderConfiguration|TYPE", "REFERENCES")
    assert configured["cs:Shop.Domain.Order.Delivery|PROPERTY"]["owned"] is True
    assert configured["cs:Shop.Domain.Order.Code|PROPERTY"]["conversion"] is True
    assert configured["cs:Shop.Domain.Order.Buyer|PROPERTY"]["via"] == "entity_type_configuration"
    # `WithMany(c => c.Orders)` names the other side, the owned builder's lambda the owned type's member
    assert "cs:Shop.Domain.Label.Orders|PROPERTY" not in configured
    assert "cs:Shop.Domain.Address.Street|PROPERTY" not in configured
    assert "cs:Shop.Domain.Order.Comment|PROPERTY" not in configured


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
    assert build["cs:Shop.Domain.Order.Total|PROPERTY"]["owned"] is True
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
    assert edges(graph, "cs:Shop.Data.Config.Converters|TYPE", "REFERENCES")["cs:Shop.Domain.Sku|TYPE"]["via"] \
        == "value_converter"
    money = edges(graph, "cs:Shop.Data.Config.MoneyConverter|TYPE", "REFERENCES")
    assert money["cs:Shop.Domain.Money|TYPE"]["via"] == "value_converter"
    assert "cs:Shop.Domain.Order|TYPE" not in money


def test_a_classmap_names_its_properties_and_maps_a_collection_to_its_join_table():
    graph = graph_of(FILES)
    mapped = edges(graph, "cs:Shop.Mappings.LabelMapping|TYPE", "REFERENCES")
    assert mapped["cs:Shop.Domain.Label.Orders|PROPERTY"]["table"] == "LabelOrder"
    assert edges(graph, "cs:Shop.Domain.Label.Orders|PROPERTY", "MAPS_TO")["sql:dbo.LabelOrder|TABLE"]["via"] \
        == "join_table"
    assert "sql:dbo.LabelOrder|TABLE" not in edges(graph, "cs:Shop.Domain.Label|TYPE", "MAPS_TO")
    assert "sql:dbo.LabelOrder|TABLE" not in edges(graph, ORDER, "MAPS_TO")
