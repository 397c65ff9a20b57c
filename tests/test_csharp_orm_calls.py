"""Typed micro-ORM and session calls (`index/csharp/orm_calls`): the entity is the generic method's
type argument (`Db.SingleById<Order>(id)`), the argument (`Db.Insert(order)`) or what a lambda
argument creates (`Db.UpdateOnly(() => new Order {..})`); and the edges they must not make (a
cache or a list with the same verbs, a file without the ORM's using, a value-typed `Column<int>`,
an entity with no table, a method the repository declares)."""
from __future__ import annotations

import networkx as nx

from ragstream.index.csharp.orm_calls import ORM_APIS
from ragstream.index.csharp.data_access import WRITE_VERBS
from ragstream.index.csharp.parser import parse_csharp
from ragstream.index.graph_build import build_graph
from ragstream.index.sql.parser import parse_sql

SCHEMA = """
CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Total INT);
CREATE TABLE dbo.Customers (Id INT PRIMARY KEY, Name NVARCHAR(50));
"""

MODEL = """
using System.ComponentModel.DataAnnotations.Schema;
namespace Shop.Domain;
[Table("Orders")]
public class Order { public int Id { get; set; } public int Total { get; set; } }
[Table("Customers")]
public class Customer { public int Id { get; set; } public string Name { get; set; } }
public class Unmapped { public int Id { get; set; } }
"""

ORDERS, CUSTOMERS = "sql:dbo.Orders|TABLE", "sql:dbo.Customers|TABLE"


def build(cs: dict[str, str]) -> nx.MultiDiGraph:
    files = [parse_csharp(path, text) for path, text in {"Model.cs": MODEL, **cs}.items()]
    files.append(parse_sql("db/schema.sql", SCHEMA, "tsql"))
    graph, _ = build_graph(files)
    return graph


def edges(graph: nx.MultiDiGraph, method: str, edge_type: str) -> dict[str, dict]:
    return {target: data for _, target, data in graph.out_edges(f"cs:{method}|METHOD", data=True)
            if data["type"] == edge_type}


ORMLITE = """
using ServiceStack;
using ServiceStack.OrmLite;
using Shop.Domain;
namespace Shop.Services;
public class OrderServices : Service
{
    public object Get(int id) => Db.SingleById<Order>(id);
    public object Joined() => Db.Select(Db.From<Order>().Join<Customer>());
    public void Create(Order order) => Db.Insert(order);
    public void Convert(Customer customer) => Db.Insert(ToOrder(customer));
    private Order ToOrder(Customer customer) => new Order();
    public void Cancel(int id) => Db.UpdateOnly(() => new Order { Total = 0 }, where: x => x.Id == id);
    public void Drop(int id) => Db.DeleteById<Customer>(id);
    public async Task<int> Counted() => (int)await Db.CountAsync<Customer>();
    public object Totals() => Db.Column<int>(Db.From<Order>().Select(x => x.Total));
    public object Nothing() => Db.Select<Unmapped>();
    public object Each(IEnumerable<int> ids) => ids.Select(id => Db.SingleById<Customer>(id)).ToList();
    public void Untyped(dynamic items) { foreach (var item in items) item.Delete<Order>(); }
}
"""


def test_ormlite_reads_and_writes_by_type_argument_argument_and_lambda():
    graph = build({"OrderServices.cs": ORMLITE})
    read = edges(graph, "Shop.Services.OrderServices.Get", "READS")
    assert set(read) == {ORDERS}
    assert read[ORDERS]["via"] == "type_argument" and read[ORDERS]["resolution"] == "inferred"
    assert read[ORDERS]["carrier"] == "ServiceStack.OrmLite.SingleById"
    assert read[ORDERS]["guess"] is True  # `Db` is a member of a package's base: its type is not seen
    assert "table_by_name" not in read[ORDERS]  # mapped by its `[Table]`
    assert edges(graph, "Shop.Services.OrderServices.Get", "WRITES") == {}
    assert set(edges(graph, "Shop.Services.OrderServices.Joined", "READS")) == {ORDERS, CUSTOMERS}
    written = edges(graph, "Shop.Services.OrderServices.Create", "WRITES")
    assert set(written) == {ORDERS} and written[ORDERS]["via"] == "entity_argument"
    assert set(edges(graph, "Shop.Services.OrderServices.Cancel", "WRITES")) == {ORDERS}
    assert set(edges(graph, "Shop.Services.OrderServices.Convert", "WRITES")) == {ORDERS}  # what the call returns
    assert edges(graph, "Shop.Services.OrderServices.Cancel", "READS") == {}
    assert set(edges(graph, "Shop.Services.OrderServices.Drop", "WRITES")) == {CUSTOMERS}
    assert set(edges(graph, "Shop.Services.OrderServices.Counted", "READS")) == {CUSTOMERS}
    # `Column<int>` is typed by its values: only the query builder's `From<Order>` reads
    assert set(edges(graph, "Shop.Services.OrderServices.Totals", "READS")) == {ORDERS}
    assert edges(graph, "Shop.Services.OrderServices.Nothing", "READS") == {}  # no table is known
    assert set(edges(graph, "Shop.Services.OrderServices.Each", "READS")) == {CUSTOMERS}
    # a receiver the syntax gives no type: the ORM's verb and using decide, a guess
    assert edges(graph, "Shop.Services.OrderServices.Untyped", "WRITES")[ORDERS]["guess"] is True


def test_without_the_orms_using_the_same_calls_make_nothing():
    graph = build({"OrderServices.cs": ORMLITE.replace("using ServiceStack.OrmLite;\n", "")})
    for method in ("Get", "Joined", "Cancel", "Drop"):
        assert edges(graph, f"Shop.Services.OrderServices.{method}", "READS") == {}
        assert edges(graph, f"Shop.Services.OrderServices.{method}", "WRITES") == {}
    # `Insert(order)` of a mapped entity is any persistence API's write (`data_access`), not the ORM's
    assert all(not d["carrier"].startswith("ServiceStack") for d in edges(graph, "Shop.Services.OrderServices.Create", "WRITES").values())


def test_dapper_contrib_on_a_connection_but_not_on_a_cache_or_a_list():
    graph = build({"Store.cs": """
using System.Collections.Generic;
using System.Data;
using Dapper.Contrib.Extensions;
using Shop.Domain;
namespace Shop.Data;
public interface ICacheClient { T Get<T>(string key); }
public class OrderStore
{
    private readonly IDbConnection _connection;
    private readonly ICacheClient _cache;
    private readonly IRedisClient _redis;
    private readonly List<Order> _recent = new();
    public Order Find(int id) => _connection.Get<Order>(id);
    public IEnumerable<Customer> All() => _connection.GetAll<Customer>();
    public void Change(Order order) => _connection.Update(order);
    public Order Cached(string key) => _cache.Get<Order>(key);
    public Order Remote(string key) => _redis.Get<Order>(key);
    public void Remember(Order order) => _recent.Insert(0, order);
}
"""})
    found = edges(graph, "Shop.Data.OrderStore.Find", "READS")
    assert set(found) == {ORDERS} and "guess" not in found[ORDERS]  # the receiver is typed a connection
    assert set(edges(graph, "Shop.Data.OrderStore.All", "READS")) == {CUSTOMERS}
    assert set(edges(graph, "Shop.Data.OrderStore.Change", "WRITES")) == {ORDERS}
    assert edges(graph, "Shop.Data.OrderStore.Cached", "READS") == {}
    assert edges(graph, "Shop.Data.OrderStore.Remote", "READS") == {}  # a package's type that is no connection
    assert edges(graph, "Shop.Data.OrderStore.Remember", "WRITES") == {}


def test_nhibernate_session_get_and_load_but_not_a_repository_method_of_the_same_name():
    graph = build({"Store.cs": """
using NHibernate;
using Shop.Domain;
namespace Shop.Data;
public class Settings { public Order Get<T>(int id) => null; }
public class OrderStore
{
    private readonly ISession _session;
    private readonly Settings _settings;
    public Order Find(int id) => _session.Get<Order>(id);
    public Customer Proxy(int id) => _session.Load<Customer>(id);
    public Order Own(int id) => _settings.Get<Order>(id);
}
"""})
    assert set(edges(graph, "Shop.Data.OrderStore.Find", "READS")) == {ORDERS}
    assert set(edges(graph, "Shop.Data.OrderStore.Proxy", "READS")) == {CUSTOMERS}
    assert edges(graph, "Shop.Data.OrderStore.Own", "READS") == {}


def test_each_orm_verb_is_read_or_write_once_and_the_write_verbs_read_as_writes():
    for api in ORM_APIS:
        assert not api.reads & api.writes
        assert all(verb.startswith(WRITE_VERBS) for verb in api.writes)
        assert not any(verb.startswith(WRITE_VERBS) for verb in api.reads)


def test_a_generic_method_forwarding_its_type_parameter_to_the_session_reads_for_its_callers():
    """`Repository.Get<Order>(id)` through `IRepository.Get<TEntity>` to `session.Get<TEntity>(id)`
    reads the orders; `FindAll<TEntity>()` over `session.QueryOver<TEntity>()` reads too; a generic
    method that hands its type parameter to no ORM (`Describe<T>()`) makes nothing."""
    graph = build({"Repository.cs": """
using System.Collections.Generic;
using NHibernate;
namespace Shop.Data;
public interface IRepository
{
    TEntity Get<TEntity>(object id);
    IEnumerable<TEntity> FindAll<TEntity>() where TEntity : class;
    string Describe<TEntity>();
}
public class NHibernateRepository : IRepository
{
    private readonly ISession session;
    public TEntity Get<TEntity>(object id) { return session.Get<TEntity>(id); }
    public IEnumerable<TEntity> FindAll<TEntity>() where TEntity : class { return session.QueryOver<TEntity>().List<TEntity>(); }
    public string Describe<TEntity>() => typeof(TEntity).Name;
}
""", "Controller.cs": """
using Shop.Data;
using Shop.Domain;
namespace Shop.Web;
public class AdminController
{
    public IRepository Repository { get; set; }
    public object Show(int id) => Repository.Get<Order>(id);
    public object List() => Repository.FindAll<Customer>();
    public string Name() => Repository.Describe<Order>();
}
"""})
    read = edges(graph, "Shop.Web.AdminController.Show", "READS")
    assert set(read) == {ORDERS}
    assert read[ORDERS]["via"] == "type_argument" and read[ORDERS]["member"] == "Get"
    assert read[ORDERS]["forwarder"] == "cs:Shop.Data.NHibernateRepository.Get|METHOD"
    assert set(edges(graph, "Shop.Web.AdminController.List", "READS")) == {CUSTOMERS}
    assert edges(graph, "Shop.Web.AdminController.Name", "READS") == {}
    assert edges(graph, "Shop.Web.AdminController.Show", "WRITES") == {}
