"""EF's property -> column conventions (`ef_columns`): each rule's edge, and the edge it must not
make; and column impact reaching a property and the code that uses it."""
from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest

from ragstream.graph.named import Named
from ragstream.graph.relations import impact_of, property_columns, property_users
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = '''
CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Number NVARCHAR(20), FullName NVARCHAR(50), Name NVARCHAR(50),
    Status INT, Total DECIMAL(9,2), CustomerId INT, Customer INT, Lines INT, Cache INT, Computed INT,
    Remark NVARCHAR(200), Note NVARCHAR(200), ShipTo_Street NVARCHAR(80), ShipTo NVARCHAR(80),
    Discriminator NVARCHAR(40), Express BIT, CreatedOn DATETIME, Price_Amount DECIMAL(9,2), Price DECIMAL(9,2));
CREATE TABLE dbo.Customers (Id INT PRIMARY KEY, Name NVARCHAR(50), CreatedOn DATETIME);
CREATE TABLE dbo.OrderLines (Id INT PRIMARY KEY, OrderId INT, Quantity INT);
'''

ENTITIES = '''
using System.Collections.Generic;
using System.ComponentModel.DataAnnotations.Schema;
namespace Shop.Domain;
public enum OrderStatus { Open, Shipped }
public abstract class Entity { public int Id { get; set; } public DateTime CreatedOn { get; set; } }
public class Address { public string Street { get; set; } }
[Owned] public class Money { public decimal Amount { get; set; } }
public class Customer : Entity { public string Name { get; set; } }
public class OrderLine : Entity { public int OrderId { get; set; } public int Quantity { get; set; } }
public class Order : Entity
{
    public string Number { get; set; }
    [Column("FullName")] public string Name { get; set; }
    public OrderStatus Status { get; set; }
    public decimal Total { get; private set; }
    public int CustomerId { get; set; }
    public Customer Customer { get; set; }
    public ICollection<OrderLine> Lines { get; set; }
    [NotMapped] public int Cache { get; set; }
    public int Computed => Total > 0 ? 1 : 0;
    public string Note { get; set; }
    public Address ShipTo { get; set; }
    public Money Price { get; set; }
}
public class ExpressOrder : Order { public bool Express { get; set; } }
'''

CONTEXT = '''
using Microsoft.EntityFrameworkCore;
using Shop.Domain;
namespace Shop.Data;
public class ShopContext : DbContext
{
    public DbSet<Order> Orders { get; set; }
    public DbSet<ExpressOrder> ExpressOrders { get; set; }
    public DbSet<Customer> Customers { get; set; }
    public DbSet<OrderLine> OrderLines { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<Order>().Property(o => o.Note).HasColumnName("Remark");
        modelBuilder.Entity<Order>().Ignore(o => o.Number);
        modelBuilder.Entity<Order>().OwnsOne(o => o.ShipTo);
    }
}
'''

SERVICE = '''
using Shop.Data;
using Shop.Domain;
namespace Shop.App;
public class OrderService
{
    private readonly ShopContext _db;
    public void Rename(int id, string name) { var o = _db.Orders.Find(id); o.Name = name; _db.SaveChanges(); }
    public int Count() => _db.Customers.Count();
    public void Stamp(int id) { var o = _db.Orders.Find(id); o.CreatedOn = DateTime.UtcNow; _db.SaveChanges(); }
}
'''

FILES = {"db/schema.sql": SCHEMA, "src/Domain/Entities.cs": ENTITIES, "src/Data/ShopContext.cs": CONTEXT,
         "src/App/OrderService.cs": SERVICE}


@pytest.fixture(scope="module")
def graph() -> nx.MultiDiGraph:
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text) for path, text in FILES.items()]
    return build_graph(parsed)[0]


def columns_of(graph: nx.MultiDiGraph, prop: str) -> dict[str, dict]:
    return {column: attrs for _, column, key, attrs in graph.out_edges(f"cs:Shop.Domain.{prop}|PROPERTY", keys=True, data=True)
            if key == "MAPS_TO" and graph.nodes[column].get("kind") == "COLUMN"}


def test_a_scalar_property_is_stored_in_the_column_of_its_name(graph):
    assert columns_of(graph, "Order.CustomerId") == {"sql:dbo.Orders.CustomerId|COLUMN": {
        "type": "MAPS_TO", "via": "ef_convention", "entity": "cs:Shop.Domain.Order|TYPE", "line": 17,
        "resolution": "inferred", "mapping": "by_convention", "guess": True}}
    assert set(columns_of(graph, "Order.Status")) == {"sql:dbo.Orders.Status|COLUMN"}  # an enum is a column
    assert set(columns_of(graph, "Order.Total")) == {"sql:dbo.Orders.Total|COLUMN"}  # a private setter still maps


def test_a_column_attribute_maps_to_the_renamed_column_only(graph):
    found = columns_of(graph, "Order.Name")
    assert set(found) == {"sql:dbo.Orders.FullName|COLUMN"}
    assert found["sql:dbo.Orders.FullName|COLUMN"]["via"] == "column_attribute"
    assert found["sql:dbo.Orders.FullName|COLUMN"]["resolution"] == "static"


def test_has_column_name_maps_to_the_configured_column_only(graph):
    found = columns_of(graph, "Order.Note")
    assert set(found) == {"sql:dbo.Orders.Remark|COLUMN"}
    assert found["sql:dbo.Orders.Remark|COLUMN"]["via"] == "has_column_name"


def test_navigations_ignored_and_read_only_properties_are_no_column(graph):
    for prop in ("Order.Customer", "Order.Lines", "Order.Cache", "Order.Computed", "Order.Number"):
        assert columns_of(graph, prop) == {}, prop


def test_an_owned_type_is_stored_as_owner_underscore_property(graph):
    assert set(columns_of(graph, "Address.Street")) == {"sql:dbo.Orders.ShipTo_Street|COLUMN"}
    assert columns_of(graph, "Order.ShipTo") == {}  # the owner's property is no column itself
    # a type marked [Owned] is owned wherever an entity holds it
    assert set(columns_of(graph, "Money.Amount")) == {"sql:dbo.Orders.Price_Amount|COLUMN"}
    assert columns_of(graph, "Order.Price") == {}


def test_inherited_properties_are_stored_in_each_table_and_tph_in_the_base_table(graph):
    assert set(columns_of(graph, "Entity.CreatedOn")) == {
        "sql:dbo.Orders.CreatedOn|COLUMN", "sql:dbo.Customers.CreatedOn|COLUMN"}
    assert set(columns_of(graph, "ExpressOrder.Express")) == {"sql:dbo.Orders.Express|COLUMN"}
    assert "sql:dbo.OrderLines.CreatedOn|COLUMN" not in graph  # no column node made up from the model


def test_column_impact_reaches_the_property_and_the_code_that_writes_it(graph):
    column = "sql:dbo.Orders.FullName|COLUMN"
    subject = Named(column, "COLUMN", "dbo.Orders.FullName", "column", "sql:dbo.Orders|TABLE")
    texts = {n: graph.nodes[n].get("signature", "") for n in graph}
    texts["cs:Shop.App.OrderService.Rename|METHOD"] = "var o = _db.Orders.Find(id); o.Name = name;"
    found = {item.id: item for item in impact_of(graph, subject, lambda ids: {i: texts.get(i, "") for i in ids})}
    assert found["cs:Shop.Domain.Order.Name|PROPERTY"].relation == "maps column"
    assert "cs:Shop.App.OrderService.Rename|METHOD" in found
    # the property named as another column is not this one's: `Name` is stored in FullName, not Name
    name = Named("sql:dbo.Orders.Name|COLUMN", "COLUMN", "dbo.Orders.Name", "column", "sql:dbo.Orders|TABLE")
    assert "cs:Shop.Domain.Order.Name|PROPERTY" not in {i.id for i in impact_of(graph, name, lambda ids: {})}
    # and a [NotMapped] property of a column's name is no user of that column
    cache = Named("sql:dbo.Orders.Cache|COLUMN", "COLUMN", "dbo.Orders.Cache", "column", "sql:dbo.Orders|TABLE")
    assert "cs:Shop.Domain.Order.Cache|PROPERTY" not in {i.id for i in impact_of(graph, cache, lambda ids: {})}


def test_column_impact_reaches_the_code_writing_a_property_the_entity_inherits(graph):
    subject = Named("sql:dbo.Orders.CreatedOn|COLUMN", "COLUMN", "dbo.Orders.CreatedOn", "column", "sql:dbo.Orders|TABLE")
    texts = {"cs:Shop.App.OrderService.Stamp|METHOD": "var o = _db.Orders.Find(id); o.CreatedOn = DateTime.UtcNow;",
             "cs:Shop.App.OrderService.Rename|METHOD": "var o = _db.Orders.Find(id); o.Name = name;"}
    found = {item.id: item for item in impact_of(graph, subject, lambda ids: {i: texts.get(i, "") for i in ids})}
    assert found["cs:Shop.Domain.Entity.CreatedOn|PROPERTY"].via == "ef_convention"
    assert "cs:Shop.App.OrderService.Stamp|METHOD" in found
    assert "cs:Shop.App.OrderService.Rename|METHOD" not in found  # holds an order, names no CreatedOn
    # the users of the base's property, found through the entity whose table stores it
    inherited = "cs:Shop.Domain.Entity.CreatedOn|PROPERTY"
    text_of = lambda ids: {i: texts.get(i, "") for i in ids}  # noqa: E731
    assert [u.id for u in property_users(graph, inherited, text_of, "cs:Shop.Domain.Order|TYPE")] == [
        "cs:Shop.App.OrderService.Stamp|METHOD"]
    assert property_users(graph, inherited, text_of) == []  # the abstract base maps to no table


def test_a_property_rename_reaches_its_column(graph):
    assert property_columns(graph, "cs:Shop.Domain.Order.Name|PROPERTY") == ["sql:dbo.Orders.FullName|COLUMN"]
    assert property_columns(graph, "cs:Shop.Domain.Order.Cache|PROPERTY") == []
    assert property_columns(graph, "cs:Shop.Domain.Entity.CreatedOn|PROPERTY") == [
        "sql:dbo.Customers.CreatedOn|COLUMN", "sql:dbo.Orders.CreatedOn|COLUMN"]


EMPLOYEES = '''
CREATE TABLE dbo.Employees (EmployeeID INT PRIMARY KEY, ReportsTo INT,
    CONSTRAINT FK_Employees_Employees FOREIGN KEY (ReportsTo) REFERENCES dbo.Employees (EmployeeID));
'''


@pytest.mark.parametrize("column, other", [("ReportsTo", "EmployeeID"), ("EmployeeID", "ReportsTo")])
def test_a_self_referencing_key_names_the_other_column_of_the_same_table(column, other):
    graph = build_graph([parse_sql("db/employees.sql", EMPLOYEES)])[0]
    subject = Named(f"sql:dbo.Employees.{column}|COLUMN", "COLUMN", f"dbo.Employees.{column}", "column",
                    "sql:dbo.Employees|TABLE")
    found = {item.id for item in impact_of(graph, subject, lambda ids: {}) if item.relation == "FOREIGN_KEY"}
    assert f"sql:dbo.Employees.{other}|COLUMN" in found
    assert subject.id not in found  # a column is not the other side of its own key


def test_the_edges_settling_the_model_adds_are_counted_with_the_resolved_ones():
    """The configuring code's REFERENCES to its entity's table and each property's column are in
    the resolver's counts (`graph_coverage`), as every other resolved edge is."""
    parsed = [parse_sql(path, text) if path.endswith(".sql") else parse_csharp(path, text) for path, text in FILES.items()]
    graph, stats = build_graph(parsed)
    edges = Counter(key for _, _, key in graph.edges(keys=True))
    assert graph.has_edge("cs:Shop.Data.ShopContext.OnModelCreating|METHOD", "sql:dbo.Orders|TABLE", key="REFERENCES")
    assert stats.resolved["REFERENCES"] == edges["REFERENCES"]
    assert stats.resolved["MAPS_TO"] == edges["MAPS_TO"]
