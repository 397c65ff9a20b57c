"""Type -> table registries (`table_registry`): `Mapper.Entity<AppIndexerMap>("ApplicationIndexerMapping")`
maps the type to the table its literal names, always a guess; a logger's `Log<T>("text")`, a
literal naming no table, a non-literal argument, a member called so for one type only (a cache
key) and a registration inside an EF DbContext map nothing."""
from __future__ import annotations

import networkx as nx

from ragstream.graph.mappings import mapping_of
from ragstream.graph.named import named_node
from ragstream.graph.questions import asked_words
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

CODE = """
namespace Indexers.Datastore;
public class AppIndexerMap { public int Id { get; set; } }
public class History { public int Id { get; set; } }
public class Note { public int Id { get; set; } }
public class Tag { public int Id { get; set; } }
public class TableMapper { public void Entity<T>(string table) { } }
public class Logger { public void Log<T>(string text) { } }
public static class TableMapping
{
    public static TableMapper Mapper = new TableMapper();
    public static Logger Logs = new Logger();
    public static void Map(string tagTable)
    {
        Mapper.Entity<AppIndexerMap>("ApplicationIndexerMapping");
        Mapper.Entity<History>("history");
        Mapper.Entity<Note>("Nowhere");
        Mapper.Entity<Tag>(tagTable);
        Logs.Log<Note>("Notes");
    }
}
"""

SCHEMA = """
CREATE TABLE dbo.ApplicationIndexerMapping (Id INT PRIMARY KEY);
CREATE TABLE dbo.History (Id INT PRIMARY KEY);
CREATE TABLE dbo.Notes2 (Id INT PRIMARY KEY);
CREATE TABLE dbo.Tags (Id INT PRIMARY KEY);
"""

MAP = "cs:Indexers.Datastore.TableMapping.Map|METHOD"


def _graph() -> nx.MultiDiGraph:
    return build_graph([parse_csharp("TableMapping.cs", CODE), parse_sql("schema.sql", SCHEMA, "tsql")])[0]


def _maps(graph: nx.MultiDiGraph, name: str) -> dict[str, dict]:
    return {target: data for _, target, key, data in
            graph.out_edges(f"cs:Indexers.Datastore.{name}|TYPE", keys=True, data=True) if key == "MAPS_TO"}


def test_a_registration_call_maps_the_type_to_the_table_its_literal_names() -> None:
    maps = _maps(_graph(), "AppIndexerMap")
    assert set(maps) == {"sql:dbo.ApplicationIndexerMapping|TABLE"}
    edge = maps["sql:dbo.ApplicationIndexerMapping|TABLE"]
    assert edge["via"] == "registry" and edge["mapped_by"] == MAP and edge["resolution"] == "inferred"
    assert edge["registry"] == "Entity" and edge["guess"] is True  # the call's shape is all it rests on


def test_a_literal_naming_the_table_in_another_case_is_a_guess() -> None:
    edge = _maps(_graph(), "History")["sql:dbo.History|TABLE"]
    assert edge["via"] == "registry" and edge["guess"] is True


def test_no_mapping_from_a_literal_naming_no_table_a_logger_or_a_non_literal() -> None:
    graph = _graph()
    assert not any(data.get("via") == "registry" for data in _maps(graph, "Note").values())
    assert not any(data.get("via") == "registry" for data in _maps(graph, "Tag").values())


LONE = """
namespace Shop;
public class Customer { public int Id { get; set; } }
public class Invoice { public int Id { get; set; } }
public class Order { public int Id { get; set; } }
public class Cache { public T Get<T>(string key) => default; }
public class ShopContext : Microsoft.EntityFrameworkCore.DbContext
{
    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Register<Invoice>("Invoices");
        modelBuilder.Register<Order>("Orders");
    }
}
public class CustomerService
{
    private readonly Cache _cache = new Cache();
    public Customer Find() => _cache.Get<Customer>("Customers");
}
"""

LONE_SCHEMA = """
CREATE TABLE dbo.Customers (Id INT PRIMARY KEY);
CREATE TABLE dbo.Invoices (Id INT PRIMARY KEY);
CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);
"""


def test_a_member_called_for_one_type_or_inside_a_db_context_registers_nothing() -> None:
    graph = build_graph([parse_csharp("Shop.cs", LONE), parse_sql("schema.sql", LONE_SCHEMA, "tsql")])[0]
    registry = [(s, t) for s, t, data in graph.edges(data=True) if data.get("via") == "registry"]
    assert registry == []


def test_a_mapping_answer_names_the_registering_method_with_the_table() -> None:
    """"Which class is stored in ApplicationIndexerMapping, and where is that registered": the
    method whose registration made the MAPS_TO is the mapping code; the logger's note is not."""
    graph = _graph()
    table = "sql:dbo.ApplicationIndexerMapping|TABLE"
    ids = [i.id for i in mapping_of(graph, named_node(graph, table, "table"), asked_words("Where is that registered?"))]
    assert ids[:2] == ["cs:Indexers.Datastore.AppIndexerMap|TYPE", MAP]
    notes = [i.id for i in mapping_of(graph, named_node(graph, "sql:dbo.Notes2|TABLE", "table"), [])]
    assert MAP not in notes  # `Log<Note>("Notes")` registers nothing
